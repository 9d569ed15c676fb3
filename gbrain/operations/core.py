"""The core operations: pages (get/put/delete/list), search, tags, links, timeline, raw data,
config, and the tree operations import/export/verify/check. Area operations live beside this
module (``agents``, ``search``, ``lint``, ``sync``, ``graph``, ``skills``, ``history``)."""
from __future__ import annotations

import errno
import json
import os
import posixpath
import re
import sys
from pathlib import Path
from typing import Any

from .. import __version__
from ..core.brain import Brain
from ..search.keyword import empty_query, search as fts_search
from ..search.spell import inside, suggest
from ..errors import Ambiguous, BadInput, Conflict, GBrainError, NotFound
from ..page.slugs import cmd_arg, is_hidden_path, page_slug_for_sidecar
from ..page.navfile import is_nav_file
from .registry import (
    REGISTRY, HIT_STYLE,
    ANY_DEPTH, LIMIT, PAGE_CHARS, PAGE_REF, PREFIX, SINCE, Nothing, Param, SAVED, SLUG, TAG, TYPE, _dir_arg, _report_text, _compare_text, created_folders_text, cut_note, _rows, _saved, _since, copy_mark, limit_param, month_or_year, obj, op, read_slug,
)


@op("init", "Create a new, empty brain database (default ./brain.db).", [Param("path", path=True, description="where to create the database (default: --db, $GBRAIN_DB or ./brain.db)", positional=True)], mcp=False, title="Create a brain", db="none", text=lambda r, a: f"{'created' if r['created'] else 'exists'} {r['path']} (schema v{r['schema_version']})")
def _init(_b, a, ctx):
    from ..storage.db import SCHEMA_VERSION, resolve_db_path

    path = resolve_db_path(a["path"] or ctx.db)
    if not isinstance(path, Path):  # a Postgres URL: a brain exists when its schema does
        from ..storage import pg

        existed = pg.brain_exists(path.url)  # type: ignore[attr-defined]
        with Brain.open(path, create=True):
            pass
        return {"path": str(path), "created": not existed, "schema_version": pg.PG_SCHEMA_VERSION}
    existed = path.exists() and path.stat().st_size > 0
    with Brain.open(path, create=True, allow_empty_file=True):
        pass
    return {"path": str(path), "created": not existed, "schema_version": SCHEMA_VERSION}


def _version_text(r: dict, a: dict) -> str:
    on = " on Postgres" if r.get("engine") == "postgres" else ""
    code = f"; this gbrain's: v{r['code_schema_version']}" if r.get("code_schema_version") else ""
    return f"gbrain {r['version']} (schema v{r['schema_version']}{on}{code}, Python {r['python']})"


@op("version", "Print gbrain's version and database schema version (a Postgres brain numbers its schema apart from SQLite: there the database's own version).", [], mcp=False, title="Show gbrain's and the brain's versions", db="none", text=_version_text)
def _version(_b, a, ctx):
    from ..storage.db import SCHEMA_VERSION, resolve_db_path

    out = {"version": __version__, "schema_version": SCHEMA_VERSION, "engine": "sqlite", "python": sys.version.split()[0]}
    path = resolve_db_path(ctx.db)
    if getattr(path, "url", None):  # Postgres: the database's gbrain_schema (this code's when it has none yet)
        from ..storage import pg

        have = pg.database_schema_version(path.url)  # type: ignore[attr-defined]
        out.update(engine="postgres", schema_version=have or pg.PG_SCHEMA_VERSION)
    else:  # SQLite: the file's user_version (this code's when there is no brain there yet)
        have = _sqlite_schema_version(Path(path))
        if have and have != SCHEMA_VERSION:
            out.update(schema_version=have, code_schema_version=SCHEMA_VERSION)
    return out


def _sqlite_schema_version(p: Path) -> int | None:
    """The schema version (``PRAGMA user_version``) of the SQLite file ``p``, read without
    writing; None when there is no file or it cannot be read as a database. Never raises."""
    import sqlite3

    from ..errors import GBrainError
    from ..storage.db import raw_connect

    try:
        if not p.is_file() or p.stat().st_size == 0:
            return None
        conn = raw_connect(p, read_only=True)
        try:
            return conn.execute("PRAGMA user_version").fetchone()[0]
        finally:
            conn.close()
    except (sqlite3.Error, GBrainError, OSError):
        return None


#: what an agent's read gives at most by default (``max_chars`` of brain_get and brain_raw), in
#: characters: ~15,000 tokens
PART_CHARS = 60_000


@op(
    "get",
    "Read a page: its markdown exactly as stored (`version`: as it was then) and content_hash, for brain_put's if_hash. "
    "A long page comes in parts: `truncated` true, `next_offset` where the rest starts (pass it as `offset`), `sections` "
    "its headings' offsets. A part's content_hash is a part token, for a partial put only; `max_chars` 0 reads it whole.",
    [
        SLUG,
        Param("version", "integer", "a version number from `history` (a deleted page's too)", minimum=1),
        Param("offset", "integer", "start at this character (a part's next_offset, or a section's offset)", default=0, minimum=0, cli=False),
        Param("max_chars", "integer", "at most this many characters, cut at a line end (0: the whole page)", minimum=0, cli=False),
        Param("section", description="just a heading's section (`A#B`: B in A) or block (`^id`); `#`: the slug's (`Note#Heading`)",
              details="as [[Note#Heading]] points at it: from its line to the next heading of its level or a higher one"),
        Param("output", path=True, description="write the exact bytes to this file instead of printing them (a page, an attachment, a .raw "
              "sidecar or other file, a binary version: streamed); refuses an existing file unless --force; missing folders on the way are created and named; "
              "a symlink is written through; a pipe, /dev/stdout or - (stdout) gets the bytes", in_schema=False),
        Param("force", "boolean", "with --output: replace an existing file", default=False, in_schema=False),
    ],
    text=lambda r, a: r["content"] if "content" in r else "" if r.get("stream") else _wrote(r) + "\n",
    text_exact=True,
    title="Read a page",
    output=obj("slug", "content", **PAGE_REF, content="string", content_hash="string?", truncated="boolean", offset="integer", next_offset="integer?", total_chars="integer", sections="array",
               sections_total="integer", note="string", section="object"),
    tool_defaults={"max_chars": PART_CHARS},
    # a renamed page's old name (stderr: stdout is the page); a pipe's "wrote" line (stdout may be that pipe)
    note=lambda r, a: "\n".join(x for x in (r.get("note"), r.get("stream") and _wrote(r)) if x) or None if isinstance(r, dict) else None,
)
def _get(b, a, ctx):
    if a.get("output"):
        if a.get("section") is not None:
            raise BadInput(f"{ctx.flag('section')} prints the section; --output writes the whole page: give one")
        return _get_to_file(b, a)
    if a.get("force"):
        raise BadInput(f"{ctx.flag('force')} only with --output")
    if a.get("version") is not None:
        from ..core.history import get_version

        out = get_version(b, a["slug"], a["version"])
    else:
        try:
            row = b.resolve_slug(a["slug"])
        except (NotFound, BadInput) as e:
            f = None if isinstance(e, BadInput) else b.stored_text_file(a["slug"])  # the root's index.md, schema.md, log.md: files, not pages
            if f is None:
                # the slug as a path, or the page path it names (``bin`` -> ``bin.md``, kept as a
                # file: not UTF-8 text, or a name no command could give as a slug); a sidecar's
                # path (``people/.raw/ana.json``) is no slug (BadInput) but a stored file
                other = None
                for path in (a["slug"], a["slug"] + ".md"):
                    other = other or b.conn.execute("SELECT path, kind, size FROM files WHERE path = ?", (path,)).fetchone()
                if other is not None:  # an attachment or a sidecar: say what it is, not "did you mean"
                    page = page_slug_for_sidecar(other["path"]) if other["kind"] == "raw" else None
                    pid = b.conn.execute("SELECT page_id FROM files WHERE path = ?", (other["path"],)).fetchone()[0] if page else None
                    read = b.page_sidecar(pid) if pid is not None else None
                    if read is not None and read != other["path"]:  # ana.JSON beside ana.json: raw reads the other
                        raws = f"`gbrain raw {cmd_arg(page)}` reads its page's other sidecar {read}, not this one, "
                    else:
                        raws = f"`gbrain raw {cmd_arg(page)}` reads its data, " if page else ""
                    what = ("a raw-data sidecar" if other["kind"] == "raw"
                            else "a hidden note (its name or a folder of it starts with a dot, hidden in Obsidian: kept as a file)"
                            if other["path"].lower().endswith(".md") and is_hidden_path(other["path"])
                            else "a file (markdown kept as a file: not UTF-8 text, or an unusable name)" if other["path"].lower().endswith(".md")
                            else "a file (an attachment)")
                    raise NotFound(f"{other['path']} is {what} of {other['size']:,} bytes, not a page: "
                                   + raws
                                   + f"`gbrain get {cmd_arg(other['path'])} --output FILE` "
                                   f"(the CLI) writes its bytes, `gbrain history {cmd_arg(other['path'])}` lists its versions") from None
                if isinstance(e, BadInput):
                    raise
                slug, note = read_slug(b, a["slug"])  # a renamed page's old name: the page, as the writes follow it
                if note is None:
                    raise
                row = b.resolve_slug(slug)
            else:
                row = None
                out = {"slug": f[0], "title": None, "type": "file", "content": f[1]}
        else:
            note = None
            if ctx.on_warning is not None:
                others = _same_name(b, a["slug"], row)
                if others:
                    ctx.on_warning(f"'{a['slug']}' names {', '.join(others)} too (the same title or file name); this is "
                                   f"{row['slug']}: read another by its slug, and write with the slug of the one meant")
        if row is not None:
            from ..core.brain import render_row

            out = {"slug": row["slug"], "title": row["title"], "type": row["type"], "content": render_row(row), "content_hash": row["content_hash"]}
            _check_hash(b, row, out["content"])
            if note:
                out["note"] = note
    offset, cap = a.get("offset") or 0, a.get("max_chars") or 0
    text = out["content"]
    if a.get("section") is not None:
        if "slug" not in out:
            raise BadInput(f"{ctx.flag('section')} reads a part of a page; {out['path']} is a file: read it whole")
        return _section(b, out, a, ctx)
    name = out.get("slug") or out["path"]  # (a file's version: its path)
    anchor = _name_anchor(a["slug"], out["slug"], out.get("title")) if "slug" in out else None
    if anchor:  # `Note#Heading` read whole, as asked; say how to read only that part
        out["note"] = "; ".join(x for x in (out.get("note"), f"this is all of {out['slug']}: {ctx.flag('section')} '#' reads only its '{anchor}'") if x)
    if offset > len(text):
        raise BadInput(f"offset {offset:,} is past the end of {name} ({len(text):,} characters)")
    if offset == 0 and (not cap or len(text) <= cap):
        if a.get("version") is None and row is not None:
            _remember(ctx, row["id"], row["content_hash"])  # a whole read: the base of this session's next put
        return out
    part = _part(text, offset, cap)
    if out.get("content_hash"):  # never the whole page's hash beside a part of it (see part_token)
        part["content_hash"] = part_token(offset, offset + len(part["content"]), out["content_hash"])
    return {**out, **part}


def _name_anchor(name: str, slug: str, title: str | None) -> str | None:
    """What follows the ``#`` of ``name`` when it is a link's target with a heading or block
    (``Note#Heading``, ``Note#^id``: :meth:`~gbrain.core.brain.Brain.resolve_slug` read the page
    it names), not a page's own name (``C#``, a slug ending in it, a title); else None."""
    n = name.strip()
    if "#" not in n.strip("#"):
        return None
    low = n.casefold()
    if slug.casefold() == low or slug.casefold().endswith("/" + low) or (title or "").strip().casefold() == low:
        return None
    return n.split("#", 1)[1].strip() or None


#: at most this many of a page's headings (or block ids) named when a section is not found
SECTION_NAMES = 12


def _section(b, out: dict, a: dict, ctx) -> dict:
    """``get`` with ``section``: the part of the page ``out`` a link's ``#…`` points at
    (:mod:`gbrain.page.sections`), as a part read: its ``content_hash`` a :func:`part_token`
    (put refuses it for whole ``content``), ``section`` its heading line (or ``^id``) and its
    first and last line. A heading in the compiled truth has its section end where the compiled
    truth does (:func:`_truth_end`: never the ``---`` separator nor the timeline, which a
    ``replace`` of the section read would drop). BadInput (exit 2) naming the page's headings (or
    block ids) when it has no such one; ``#`` takes the heading the name carries (``Note#Heading``)."""
    from ..page import sections

    text, want = out["content"], a["section"].strip()
    if want in ("", "#"):
        want = _name_anchor(a["slug"], out["slug"], out.get("title")) or ""
        if not want:
            raise BadInput(f"{ctx.flag('section')} '#' reads the heading or block the name carries ('Note#Heading'), and "
                           f"'{a['slug']}' carries none; name one: {ctx.flag('section')} HEADING (or ^BLOCK-ID)")
    found = sections.find(text, want)
    if found is None:
        block = want.lstrip("#").strip().startswith("^")
        names = ["^" + n for n in sections.block_ids(text)] if block else [h.line for h in sections.headings(text)]
        shown = ", ".join(names[:SECTION_NAMES]) + (f" (and {len(names) - SECTION_NAMES} more)" if len(names) > SECTION_NAMES else "")
        what = "block ids" if block else "headings"
        raise BadInput(f"{out['slug']} has no {'block' if block else 'heading'} '{want.lstrip('#').strip()}'"
                       + (f"; its {what}: {shown}" if names else f"; it has no {what}"), suggestions=names[:SECTION_NAMES])
    if found.kind == "heading" and _RULE_LINE.search(text, found.start, found.end):  # (no '---' line in it: no page parse)
        truth_end = _truth_end(b, text, out.get("path") or out["slug"] + ".md")
        if found.start < truth_end < found.end:
            found = sections.Section(found.kind, found.name, found.start, truth_end)
    offset, cap = a.get("offset") or 0, a.get("max_chars") or 0
    start = found.start
    if offset:
        if not found.start <= offset < found.end:
            raise BadInput(f"offset {offset:,} is outside the section ({found.start:,} to {found.end:,})")
        start = offset
    end = part_end(text[:found.end], start, cap)
    res = {k: out[k] for k in ("slug", "title", "type", "note") if k in out}
    lf = sections.lf_view(text)  # (a bare-CR page's lines counted too)
    res.update(content=text[start:end], section={"block" if found.kind == "block" else "heading": found.name,
                                                 "lines": [lf.count("\n", 0, found.start) + 1, lf.count("\n", 0, max(found.start, found.end - 1)) + 1]},
               offset=start, total_chars=len(text), truncated=end < found.end, next_offset=end if end < found.end else None)
    if out.get("content_hash"):  # the page's hash in a part token: a partial put takes it, a whole one is refused
        res["content_hash"] = part_token(start, end, out["content_hash"])
    return res


_RULE_LINE = re.compile(r"(?<![^\r\n])---[ \t]*(?![^\r\n])")  # (a line ended by LF, CRLF or a bare CR)


def _truth_end(b, text: str, path: str) -> int:
    """Where the compiled truth of the page text ``text`` ends, in characters of ``text`` (BOM
    and frontmatter included): at its ``---`` separator under the brain's ``timeline_split``
    (:meth:`~gbrain.core.brain.Brain.parse_text`), or the text's end when it has none."""
    page = b.parse_text(text, path)
    if not page.separator:
        return len(text)
    return (1 if page.bom else 0) + len(page.frontmatter_raw) + len(page.compiled_truth)


def _wrote(r: dict) -> str:
    """The line ``get --output`` says: how many bytes of what went where."""
    return (f"wrote {r['bytes']:,} bytes of {r.get('slug') or r.get('path')}" + (f" (version {r['version']})" if r.get("version") else "")
            + f" to {r['output']}" + (f" (created {created_folders_text(r['created_folders'])})" if r.get("created_folders") else ""))


def _get_to_file(b, a) -> dict:
    """``get --output FILE`` (CLI only): the exact bytes of a page, a stored file (an attachment,
    a sidecar) or a version of either (``version``) written to FILE, streamed piece by piece
    (:func:`gbrain.storage.blobs.iter_file`, :func:`gbrain.core.history.body_pieces`) into a
    temporary file beside it that then takes its name: never a half-written FILE, and an
    existing one only with ``force``. A FILE that is a symlink is written through (the file it
    points at takes the bytes; the link stays); one that is no regular file (a pipe, a terminal,
    ``/dev/stdout``; ``-`` is stdout) gets the bytes written into it, no ``force`` needed, and the result's
    ``stream`` is true (the "wrote" line then goes to stderr). A renamed page's old name writes the page under its new
    name, the result's ``note`` saying so (:func:`read_slug`), as ``get`` does; with
    ``version`` it is the old name's own history."""
    from ..core import history as h
    from ..storage import blobs

    import stat

    to_stdout = a["output"] == "-"  # as pdftotext and curl take it: the bytes on stdout
    dest = Path("/dev/stdout" if to_stdout else a["output"]).expanduser()
    if not to_stdout and dest.is_dir():
        raise BadInput(f"{dest} is a folder; give the file to write (e.g. {dest / Path(a['slug']).name})")
    try:
        mode = dest.stat().st_mode  # through a symlink: /dev/stdout is one to /proc/self/fd/1
    except OSError:
        mode = None
    # a pipe, a terminal, a device: the bytes go into it, nothing is replaced (never a temporary
    # file renamed over /dev/stdout, which took the link's place)
    stream = to_stdout or (mode is not None and not stat.S_ISREG(mode))
    if not stream and (dest.exists() or dest.is_symlink()) and not a.get("force"):
        raise BadInput(f"{dest} exists; nothing was written (--force replaces it)")
    out: dict = {}
    if a.get("version") is not None:
        kind, key = h.resolve_key(b, a["slug"])
        r = h._version_row(b, kind, key, a["version"])
        pieces = h.body_pieces(b.conn, r["body_id"])
        out = {"kind": kind, "slug" if kind == "page" else "path": key, "version": r["version"]}
    else:
        row = None
        try:
            row = b.resolve_slug(a["slug"])
        except (NotFound, BadInput) as e:  # a sidecar's path (`people/.raw/ana.json`) is no slug, but a stored file as an attachment is
            path = next((p for p in (a["slug"], a["slug"] + ".md")
                         if b.conn.execute("SELECT 1 FROM files WHERE path = ?", (p,)).fetchone()), None)
            if path is None:
                if isinstance(e, BadInput):
                    raise
                slug, note = read_slug(b, a["slug"])  # a renamed page's old name: the page, as get without --output
                if note is None:
                    raise
                row = b.resolve_slug(slug)
                out["note"] = note
            else:
                pieces = blobs.iter_file(b.conn, path)
                out = {"kind": "file", "path": path}
        if row is not None:
            from ..core.brain import render_row

            text = render_row(row)
            _check_hash(b, row, text)
            pieces = iter([text.encode("utf-8")])
            out = {**out, "kind": "page", "slug": row["slug"], "content_hash": row["content_hash"]}
    if stream:
        import contextlib

        n = 0
        try:
            with contextlib.nullcontext(sys.stdout.buffer) if to_stdout else open(os.open(dest, os.O_WRONLY), "wb") as f:
                for piece in pieces:
                    view = memoryview(piece)
                    while view:  # a pipe's short count (its reader gone, a signal): the rest again
                        w = f.write(view)
                        if w is not None and w <= 0:
                            raise OSError(errno.EIO, "the output took no bytes")
                        view = view[len(view) if w is None else w :]
                    n += len(piece)
                f.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            if not to_stdout:
                raise
            raise GBrainError(f"cannot write the output: {e.strerror or e} (stdout)") from e
        return {**out, "output": "-" if to_stdout else str(dest), "bytes": n, "stream": True}
    shown = dest
    if dest.is_symlink():  # --force: the file it points at takes the bytes, the link stays a link
        dest = Path(os.path.realpath(dest))
    from ..sync.folders import make_folders

    created = make_folders(dest.parent, dest)  # as export --dir does; said in the result, never silently
    if created:
        out["created_folders"] = created
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix="." + dest.name + ".", suffix=".part", dir=dest.parent)
    n = 0
    try:
        with os.fdopen(fd, "wb") as f:
            for piece in pieces:
                f.write(piece)
                n += len(piece)
        os.chmod(tmp, 0o666 & ~_umask())
        if a.get("force"):
            os.replace(tmp, dest)
        else:
            try:
                os.link(tmp, dest)  # fails if FILE appeared meanwhile: never replaced without --force
            except FileExistsError:
                raise BadInput(f"{dest} exists; nothing was written (--force replaces it)") from None
            except OSError:  # a file system without hard links
                if dest.exists():
                    raise BadInput(f"{dest} exists; nothing was written (--force replaces it)") from None
                os.replace(tmp, dest)
            else:
                os.unlink(tmp)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return {**out, "output": str(shown), "bytes": n}


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


#: how a part token starts: ``part:START-END:HASH`` (characters START to END of the page whose
#: content_hash is HASH)
PART_PREFIX = "part:"


def part_token(start: int, end: int, content_hash: str) -> str:
    """The ``content_hash`` a read of part of a page gives (characters ``start`` to ``end`` of
    the page whose whole-page hash is ``content_hash``): ``part:START-END:HASH``. put refuses it
    as the basis of a whole-page write (``content``: the rest would be cut) and of a
    ``compiled_truth`` the part does not hold whole; the partial updates it allows check HASH."""
    return f"{PART_PREFIX}{start}-{end}:{content_hash}"


def parse_part_token(token: str) -> tuple[int, int, str] | None:
    """``(start, end, content_hash)`` of a :func:`part_token`; None for anything else (a plain
    content_hash or a garbled token, which then is simply a hash that matches no page)."""
    import re

    m = re.fullmatch(r"part:(\d+)-(\d+):([0-9a-f]*)", token.strip().lower())
    return (int(m.group(1)), int(m.group(2)), m.group(3)) if m else None


def _check_hash(b, row, text: str) -> None:
    """Refuse to hand out a page whose stored text no longer matches the hash stored with it
    (random bytes in the database file): :class:`~gbrain.errors.Damaged`, one line with how to
    recover. Costs one sha256 of the page."""
    import hashlib

    if hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != row["content_hash"]:
        b.check_text(row, "it is not shown")


def part_end(text: str, offset: int, cap: int) -> int:
    """Where the part of ``text`` from ``offset`` ends: at most ``cap`` characters on (0: no cap),
    cut after the last line end within them when that keeps at least half of them, else after the
    last space or tab in their second half (a paragraph longer than a part: a first line of 8
    characters was a part of its own), else at the cap (brain_get's, brain_raw's and the page
    resource's parts; a character offset, never inside a ``\r\n``)."""
    end = len(text) if not cap else min(len(text), offset + cap)
    if end < len(text):
        half = offset + max(1, (end - offset) // 2)
        nl = text.rfind("\n", half - 1, end)
        if nl >= half - 1:
            return nl + 1
        blank = max(text.rfind(" ", half, end), text.rfind("\t", half, end))
        if blank >= half:
            return blank + 1
        if text[end - 1] == "\r" and text[end] == "\n" and end - 1 > offset:
            return end - 1
    return end


def _part(text: str, offset: int, cap: int) -> dict:
    """``text[offset:]`` cut to at most ``cap`` characters at a line end (0: no cap), with the
    offset the rest starts at and the page's headings (``#`` lines) with their offsets.
    ``truncated``: more of the page follows this part (``next_offset`` says where)."""
    end = part_end(text, offset, cap)
    heads = headings(text)
    sections = outline(heads, offset, min(SECTIONS_CHARS, max(500, cap // 4)) if cap else SECTIONS_CHARS)
    out = {"content": text[offset:end], "truncated": end < len(text), "offset": offset,
           "next_offset": end if end < len(text) else None, "total_chars": len(text),
           "sections": [{"heading": h, "offset": o} for _, h, o in sections]}
    if len(sections) < len(heads):
        out["sections_total"] = len(heads)
    return out


#: at most this many characters of headings in a part's ``sections`` (and a quarter of a smaller
#: ``max_chars``, at least 500): a page of 20,000 headings gave 41 KB of them beside each part (trial 26)
SECTIONS_CHARS = 6_000
_HEAD_OR_FENCE = re.compile(r"(?m)^(?: {0,3}(?P<fence>`{3,}|~{3,})|(?P<level>#{1,6}) [^\n]*)")


def headings(text: str) -> list[tuple[int, str, int]]:
    """``(level, heading line (at most 200 characters), offset)`` of each ATX heading of a page,
    outside fenced code (a ``# comment`` line of a shell block is no heading)."""
    out: list[tuple[int, str, int]] = []
    fence = ""
    for m in _HEAD_OR_FENCE.finditer(text):
        f = m.group("fence")
        if f:
            if not fence:
                fence = f
            elif f[0] == fence[0] and len(f) >= len(fence):
                fence = ""
        elif not fence:
            out.append((len(m.group("level")), m.group(0).strip()[:200], m.start()))
    return out


def outline(heads: list[tuple[int, str, int]], offset: int, budget: int) -> list[tuple[int, str, int]]:
    """The headings a part lists, within ``budget`` characters (each heading's length and ~24 for
    its JSON): all that fit; else the top levels of the outline (``#`` and ``##``, …) that fit and,
    in the room left, the next level's headings from the one the part at ``offset`` starts in;
    else the top level's headings from that one on, in order."""
    def size(hs) -> int:
        return sum(len(h) + 24 for _, h, _ in hs)

    def from_part(hs, room: int, keep_one: bool) -> list:  # ``hs`` from the one the part starts in
        start = max((i for i, x in enumerate(hs) if x[2] <= offset), default=0)
        out: list[tuple[int, str, int]] = []
        for x in hs[start:]:
            room -= len(x[1]) + 24
            if room < 0 and (out or not keep_one):
                break
            out.append(x)
        return out

    if size(heads) <= budget:
        return heads
    for top in range(max((lv for lv, _, _ in heads), default=1) - 1, 0, -1):
        hs = [x for x in heads if x[0] <= top]
        if hs and size(hs) <= budget:  # the next level fills the rest, from the part on
            more = from_part([x for x in heads if x[0] == top + 1], budget - size(hs), False)
            return sorted(hs + more, key=lambda x: x[2])
    top = min(lv for lv, _, _ in heads)
    return from_part([x for x in heads if x[0] == top], budget, True)


@op(
    "put",
    "Create or update a page: its whole markdown (`content`), or the parts given; the rest stays byte-exact. "
    "A new page needs `content` or `compiled_truth`.",
    [
        SLUG,
        Param("content", description="full page markdown", details="read from standard input or a file when it is not given", stdin=True),
        Param("compiled_truth", description="new compiled truth (text above the --- separator)"),
        Param("timeline_append", description="timeline lines to add (one there is skipped), e.g. '- **2025-03-04** | meeting — Met Ana'", joins="\n"),
        Param("frontmatter", "object", "frontmatter keys to set (null removes a key)"),
        Param("replace", "object", "{old text: new text}: find and replace in the page, each old text there exactly once",
              shape='{old text: new text}, e.g. {"enery": "energy"}',
              details="several pairs are found in the text as it was, never overlapping; applied before the other parts"),
        Param("append", description="text to add as a paragraph at the end of the compiled truth",
              details="above the timeline's --- separator (in an Excalidraw drawing note, above its drawing data); "
              "to add at the top, replace the first line"),
        Param("if_hash", description="write only if the page is still as read: the content_hash brain_get or the last write gave ('': only if there is "
              "no such page); else a conflict error, nothing written",
              details="a conflict means another writer or an edit in the synced folder changed the page: read it again and redo "
              "the edit. A part token from a read of part of a page "
              "(`part:…`) is refused for whole `content`: read the page whole for that", modifier=True),
    ],
    db="create",
    text=_saved,
    mutating=True,
    title="Write a page",
    details="Frontmatter or timeline lines alone for a slug with no page are refused, with the pages meant.",
    destructive=True,  # replaces the text it is given parts of (the old bytes are not kept)
    idempotent=True,  # the same content again: changed is false
    output=SAVED,
)
def _put(b, a, ctx):
    seen = None
    with b.transaction():  # read, edit and write the page with no other writer in between
        out = _put_locked(b, a, ctx)
        if ctx.reads is not None and a.get("content") is not None and isinstance(out, dict) and out.get("content_hash"):
            r = b.conn.execute("SELECT id FROM pages WHERE slug = ?", (out["slug"],)).fetchone()
            seen = (r[0], out["content_hash"]) if r is not None else None
    if seen:  # a whole put is the session's read of the page, once committed (a cancelled put wrote nothing)
        _remember(ctx, *seen)
    return _name_warnings(out)


def _name_warnings(out: dict) -> dict:
    """A page put created under a name Windows cannot hold (``con``, ``x:y``, ``dir./a``:
    ``slugs.windows_problem``) is kept, with a warning: a Windows copy of the folder (export,
    sync) would lack it. So is a name given with white space at the start or end of a segment
    (``' lead'``: ``slugs.space_problem``), as import keeps a file so named; the warning shows
    the name quoted, so the space is seen. A path over Windows' ``MAX_PATH`` too
    (``slugs.windows_path_problem`` of the page's file). Import keeps such files and says so in
    one line (``importer.portability_warnings``)."""
    from ..page.slugs import space_problem, windows_path_problem

    if not (isinstance(out, dict) and out.get("created")):
        return out
    slug = out.get("slug") or ""
    said = []
    why = windows_path_problem(out.get("path") or slug + ".md")
    if why:
        said.append(f"{slug}: saved, but Windows cannot hold this name ({why}): a copy of the brain's folder on Windows would lack it "
                    f"(to rename it: put the text under another name, then delete this one)")
    why = space_problem(slug)
    if why:
        plain = "/".join(part.strip() for part in slug.split("/"))
        said.append(f"{slug!r}: saved under this name as given ({why}; import names a file so named the same way); "
                    f"if the space is a mistake, put the text under {plain!r}, then delete this one")
    if said:
        out = dict(out)
        out["warnings"] = [*(out.get("warnings") or []), *said]
    return out


def _put_locked(b, a, ctx):
    moved = _renamed_target(b, a)
    if moved is None:
        return _put_page(b, a, ctx)
    out = dict(_put_page(b, {**a, "slug": moved["slug"]}, ctx))
    from ..page.slugs import slug_key

    how = "if_hash ''" if ctx.agent else f"{ctx.flag('if_hash')} ''"
    note = f"{moved['words']}; wrote {moved['slug']}"
    if slug_key(moved["slug"]) != slug_key(a["slug"]):  # (a case-only rename: no new page beside it, it would clash)
        note += f" (to make a new page {a['slug']} instead, put with {how})"
    out["note"] = f"{note}; {out['note']}" if out.get("note") else note
    return out


def _renamed_target(b, a) -> dict | None:
    """A put to the old name of a renamed page writes the page under its new name (as a put made
    before `sync` saw the rename did: the page then followed the file): :meth:`Brain.renamed`'s
    answer, or None when a page has the name (or ``if_hash`` is '': only a new page, which then
    takes the old name)."""
    if a.get("if_hash") is not None and not a["if_hash"].strip():
        return None
    try:
        if b.resolve_for_write(a["slug"]) is not None:
            return None
    except BadInput:
        # the name differs only in case from a page's: followed when it is that page's own old
        # name (a case-only rename in the folder, `Ref.md` → `ref.md`: trial 68), else refused
        moved = b.renamed(a["slug"])
        if moved is None or moved["slug"] != b.resolve_slug(a["slug"], suggest=False, loose=False)["slug"]:
            raise
        return moved
    return b.renamed(a["slug"])


def _moved_page(b, slug: str, target: bool = False) -> dict | None:
    """:meth:`Brain.renamed`'s answer for a focused write (tag, untag, timeline-add, link, unlink,
    raw-put) to ``slug`` when no page has that name but the history says where it went; None when
    a page is found (``Ambiguous`` is raised as the write would; for a link's ``target`` it is
    None: :meth:`Brain.link_target` decides, the nearest page by folders or ``Ambiguous``)."""
    try:
        b.resolve_slug(slug, suggest=False)  # a miss that is no rename fails in the write, with its near names
        return None
    except Ambiguous:
        if target:
            return None
        raise
    except (NotFound, BadInput):
        return b.renamed(slug)


def _follow(b, a: dict, write, keys: tuple[str, ...] = ("slug",)):
    """Run ``write(args)`` in one transaction, each of ``keys`` that names a renamed page (an old
    name: a rename in the synced folder, `sync`/`watch`) replaced by the page's name now, as put
    follows it; the result's ``note`` says so ("OLD was renamed to NEW on …; wrote NEW")."""
    with b.transaction():
        args, notes = dict(a), []
        for k in keys:
            moved = _moved_page(b, a[k], target=k == "to") if a.get(k) else None
            if moved is not None:
                args[k] = moved["slug"]
                notes.append(f"{moved['words']}; {'linked to' if k == 'to' else 'wrote'} {moved['slug']}")
        out = write(args)
    if notes and isinstance(out, dict):
        out = dict(out)
        out["note"] = "; ".join(notes + ([out["note"]] if out.get("note") else []))
    return out


#: what a spelling of a name may differ by besides case (`_check_spelling_twin`): white space,
#: `_`, `-` and `.`; other symbols make another name (`c++`, `c#` beside `c`)
_SEPARATORS = re.compile(r"[\s_.\-]+")


def _check_spelling_twin(b, a, ctx) -> None:
    """Refuse a put that would create ``a['slug']`` beside a page whose name is the same but for
    case and separators (white space, ``_``, ``-``, ``.``) in each folder and the file name (``people/priya_raman``,
    ``People/Priya Raman`` beside ``people/priya-raman``: the skills' slug rule makes both that
    name, and an agent's put made a second page of the person), or but for accents or a word
    break at a mark inside a word of a title (:func:`_letter_twins`). ``if_hash ''`` (only a new page)
    creates it anyway. A name a page has (exact, suffix, alias) writes that page as before."""
    from ..page.slugs import loose_key, nfc

    slug = a.get("slug")
    if not isinstance(slug, str) or not slug.strip() or b.resolve_for_write(slug) is not None:
        return

    def spelling(name: str) -> list[str]:  # each segment: case folded, runs of separators one '-'
        return [_SEPARATORS.sub("-", nfc(p).casefold()).strip("-") for p in name.split("/")]

    want = spelling(slug)
    # the indexed loose key (every run of symbols one '-') is coarser: it finds every candidate
    twins = [s for (s,) in b.conn.execute("SELECT slug FROM pages WHERE loose_key = ? ORDER BY slug LIMIT 50", (loose_key(slug),))
             if s != slug and spelling(s) == want]
    how = "if_hash ''" if ctx.agent else f"{ctx.flag('if_hash')} ''"

    def refuse(twins: list[str]) -> BadInput:
        return BadInput(f"'{slug}' is a new name for the page {twins[0]} (the same name but for case, accents, separators: spaces, _, -, ., "
                        f"or a break at a mark inside a word: O'Brien): "
                        f"give '{twins[0]}' to write that page; nothing was written (to make a new page '{slug}' beside it, put with {how})",
                        suggestions=twins)

    if twins:
        raise refuse(twins)
    read = _read_as(b, slug)
    if read:
        raise BadInput(_read_as_words(slug, read, ctx) + f" (to make a new page '{slug}' beside it, put with {how})", suggestions=[read])
    twins = _letter_twins(b, slug, want, a.get("content") if a.get("content") is not None else a.get("compiled_truth"))
    if twins:
        raise refuse(twins)


def _unaccented(name: str) -> str:
    """``name`` casefolded without its accents and with the letters that do not decompose
    (``ł``, ``ø``, ``ß``…) as search spells them: :func:`gbrain.page.slugs.fold_name`, the fold of
    the name keys search's exact names and ``name_folds`` read."""
    from ..page.slugs import fold_name

    return fold_name(name)


def _breaks(name: str) -> tuple[str, frozenset[int], frozenset[int]]:
    """``(letters, breaks, marks)`` of a name: its letters and digits (:func:`_unaccented`), the
    places (counted in letters) where a word breaks (any other character between two of them:
    white space, a separator, a symbol), and of those the places of a mark inside a word, a
    character other than white space and the separators ``_ . -`` (``O'Brien``'s ``'``,
    ``AT&T``'s ``&``): a slug maker reads such a mark as a break (``gus-o-brien``) or as nothing
    (``gus-obrien``)."""
    letters: list[str] = []
    breaks, marks = set(), set()
    pending = None  # the characters since the last letter or digit
    for ch in _unaccented(name):
        if ch.isalnum():
            if pending and letters:
                breaks.add(len(letters))
                if not any(c.isspace() or c in "_.-" for c in pending):
                    marks.add(len(letters))
            pending = None
            letters.append(ch)
        else:
            pending = (pending or "") + ch
    return "".join(letters), frozenset(breaks), frozenset(marks)


def _break_twin(new: str, old: str, titles) -> bool:
    """Whether the names ``new`` and ``old`` (file names, or a bare name and a title) are one
    name but for where words break, and each break only one of them has sits at a mark inside a
    word of one of ``titles`` (the pages' titles: ``gus-obrien`` beside ``gus-o-brien`` titled
    "Gus O'Brien"; ``titles()`` gives them, asked only then). Breaks no title explains make
    another name: ``re-act`` beside ``react``."""
    ln, bn, _ = _breaks(new)
    lo, bo, _ = _breaks(old)
    if not ln or ln != lo or bn == bo:
        return False
    marks: set[int] = set()
    for t in titles():
        lt, _, mt = _breaks(t or "")
        if lt == ln:
            marks |= mt
    return (bn ^ bo) <= marks


def _letter_twins(b, slug: str, want: list[str], text: str | None = None) -> list[str]:
    """The pages in ``slug``'s folder whose name is ``want`` (:func:`_check_spelling_twin`'s
    spelling) but for accents and the letters no decomposition folds (:func:`_unaccented`):
    ``people/zoe-kim`` beside ``people/zoë-kim``, ``people/lukasz-novak`` beside
    ``people/łukasz-novak`` (trial 40: a transcript's "Zoe Kim" made a second page of the
    person); or but for a word break at a mark inside a word of the page's title or of the new
    page's (``text``'s) (:func:`_break_twin`: ``people/gus-obrien`` beside ``people/gus-o-brien``,
    "Gus O'Brien", trial 40). A bare name (a new page's put) is read as any folder's page whose
    file name or title it is so. Accents: one indexed lookup of the name's folded key
    (:func:`~gbrain.page.slugs.fold_loose_key`) among the pages' own keys and ``name_folds``
    (search's exact names read the same keys); breaks: the pages (of the folder) whose key holds
    the same letters and digits (the indexes of the keys without ``-``, SQLite v58 / Postgres
    v62: a scan of every page's keys before, 25 → 0.02 ms CPU a put on 20,000 pages). One
    statement of indexed lookups."""
    import posixpath

    from ..page.slugs import fold_loose_key, loose_key, nfc, slug_key

    name = slug.strip().strip("/")
    folder = posixpath.dirname(name)
    key = [_unaccented(p) for p in want]
    fk = fold_loose_key(posixpath.basename(name))
    pre = (slug_key(folder) + "/") if folder else ""
    letters = loose_key(posixpath.basename(name)).replace("-", "")
    # the folder's pages: SQL's lower() folds ASCII letters alone on SQLite, every letter on
    # Postgres, so a folder of other letters (`Équipe/`) is picked here, on both engines alike
    in_folder = " AND lower(substr(slug, 1, ?)) = ?" if pre and pre.isascii() else ""
    fargs = (len(pre), pre) if in_folder else ()
    # the candidates' ids, each part an indexed lookup (a UNION: an OR beside a subquery was a
    # scan on Postgres): the folder's pages (a bare name: any folder's, by its file name or title,
    # as `_read_as` reads it) of that name but for accents (the pages' keys and `name_folds`),
    # and of the same letters and digits, a break more or less (the expression indexes of the
    # keys without '-': `storage/db.py: LETTERS_KEYS_SQL`, SQLite v58 / Postgres v62)
    parts: list[str] = []
    args: list = []
    if fk:
        parts.append("SELECT id FROM pages WHERE loose_key = ?")
        parts += [] if pre else ["SELECT id FROM pages WHERE title_key = ?"]
        parts.append("SELECT page_id FROM name_folds WHERE key = ? AND kind " + ("= 'path'" if pre else "IN ('path', 'title')"))
        args += [fk] * (2 if pre else 3)
    if letters:
        parts += ["SELECT id FROM pages WHERE replace(loose_key, '-', '') = ?", "SELECT id FROM pages WHERE replace(title_key, '-', '') = ?"]
        args += [letters, letters]
    rows = b.conn.execute(f"SELECT slug, title FROM pages WHERE id IN ({' UNION '.join(parts)}){in_folder}", (*args, *fargs)).fetchall() if parts else []
    out = []
    new_title: list[str] = []
    alnum = "".join(c for c in key[-1] if c.isalnum())  # the new name's letters and digits, as _breaks counts them

    def titles(title: str | None) -> list[str]:  # the page's title, and the new text's (parsed once, when needed)
        if text is not None and not new_title:
            new_title.append(b.parse_text(text, posixpath.basename(slug) + ".md").title or "")
        return [title or "", *new_title]

    def twin(name: str, title: str | None) -> bool:  # the same name but for accents or breaks (a spelling as written is `_read_as`'s)
        plain = [_SEPARATORS.sub("-", nfc(p).casefold()).strip("-") for p in name.split("/")]
        if plain == want or len(plain) != len(key):
            return False
        if [_unaccented(p) for p in plain[:-1]] != key[:-1]:
            return False
        last = _unaccented(plain[-1])
        if last == key[-1]:
            return True
        return "".join(c for c in last if c.isalnum()) == alnum and _break_twin(want[-1], plain[-1], lambda: titles(title))

    for s, title in sorted(rows, key=lambda r: r[0]):
        if s == slug or (pre and not in_folder and not slug_key(s).startswith(pre)):
            continue
        if pre:
            same = s.count("/") == name.count("/") and twin(s, title)
        else:
            same = twin(posixpath.basename(s), title) or ("/" not in (title or "") and twin(title or "", title))
        if same:
            out.append(s)
            if len(out) == 5:
                break
    return out


def _read_as(b, slug: str) -> str | None:
    """The page a read of ``slug`` finds (get, tag, timeline-add) when ``slug`` names no page
    for a put (which takes a name as given and creates it on a miss): a bare name (no folder)
    that is the page's file name or title but for case and separators (``Ana Lima`` for
    ``people/ana-lima``, ``[[Ana Lima]]``'s page). None when a read finds none (or several), and
    for a name that only a looser key matches (``c#`` beside the page titled ``C++``) or that
    names a folder (``lang/c#``: a put names its path as given)."""
    import posixpath

    if "/" in slug.strip().strip("/"):
        return None
    try:
        row = b.resolve_slug(slug, suggest=False)
    except (NotFound, BadInput):
        return None
    want = _spelling(slug)
    return row["slug"] if want in (_spelling(posixpath.basename(row["slug"])), _spelling(row["title"] or "")) else None


def _same_name(b, name: str, row) -> list[str]:
    """The other pages a bare name read as ``row`` names as well (a title or file name that is
    ``name`` but for case and separators: make_brain's two people titled "Ana Cruz"), at most
    five; [] when ``name`` is ``row``'s slug or holds a folder (a path names one page)."""
    from ..page.slugs import loose_key, title_key

    if "/" in name.strip().strip("/") or _spelling(name) == _spelling(row["slug"]):
        return []
    want = _spelling(name)
    rows = b.conn.execute("SELECT slug, title FROM pages WHERE (title_key = ? OR loose_key = ?) AND id <> ? ORDER BY slug LIMIT 20",
                          (title_key(name), loose_key(name), row["id"])).fetchall()
    return [r["slug"] for r in rows if want in (_spelling(posixpath.basename(r["slug"])), _spelling(r["title"] or ""))][:5]


def _spelling(name: str) -> str:
    """``name`` with case folded and every run of separators (white space, ``_``, ``-``, ``.``)
    one ``-``, NFC: the names that spelling makes the same are one name to a person."""
    from ..page.slugs import nfc

    return _SEPARATORS.sub("-", nfc(name).casefold()).strip("-")


def _cli_old(b, a):
    """The page a CLI whole put replaces (its row), for the overwrite warning alone
    (:func:`_overwrote`: Claude Code runs `gbrain put` through Bash, trial 38), or None; a name
    put itself refuses is left to it."""
    try:
        return b.resolve_for_write(a["slug"])
    except GBrainError:
        return None


def _read_as_words(slug: str, read: str, ctx) -> str:
    """What a put refused for ``slug``, a name that reads as the page ``read``, says (trial 26:
    brain_get "Ana Lima" read people/ana-lima, and a put to "Ana Lima" made a second page)."""
    get = "brain_get" if ctx.agent else "get"
    return (f"'{slug}' is no page's slug: a read ({get}) finds the page {read} by it, but a put takes its slug as given "
            f"and would make a new page '{slug}'; give '{read}' to write that page; nothing was written")


def _put_page(b, a, ctx):
    from ..core.history import PUT_PARTS

    parts = [k for k in PUT_PARTS if a.get(k) is not None]
    if a.get("if_hash") is not None:
        _check_if_hash(b, a, ctx)
    else:
        _check_spelling_twin(b, a, ctx)
    if a.get("content") is not None:
        if parts:
            whole = ctx.flag("content") + ("" if ctx.agent else " (or the text from --file or standard input)")
            raise BadInput(f"give either {whole} or {'/'.join(ctx.flag(k) for k in PUT_PARTS)}, not both")
        if ctx.agent and a.get("if_hash") is None:
            _check_part_put_back(b, a, ctx)
        old = b.resolve_for_write(a["slug"]) if ctx.agent else _cli_old(b, a)
        last = _last_version(b, old["slug"]) if old is not None and a.get("if_hash") is None else None
        read = (ctx.reads or {}).get(old["id"]) if old is not None and a.get("if_hash") is None else None
        merge = _merge_read(b, old, read, a["content"]) if read and read != old["content_hash"] else None
        text = merge["text"] if merge else a["content"]
        out = b.put(a["slug"], text).as_dict()
        if merge:
            out.update(_merge_said(b, old, merge, out, ctx))
            last = None  # said above: kept, or in the conflict copy
        if out.get("created") and not a["content"].strip():  # allowed (an empty note is a page), but said: a script's input gone missing (cron's /dev/null) made it (trial 32)
            out["warnings"] = [*out.get("warnings", []), f"{out['slug']}: created as an empty page: the text given was empty"
                               + ("" if ctx.agent else " (was standard input empty?)")]
        dropped = _dropped(b, old, text, ctx) if ctx.agent and old is not None and out.get("changed") else None
        if dropped:
            out["warnings"] = [*out.get("warnings", []), dropped]
        over = _overwrote(b, last, text, ctx) if last is not None and out.get("changed") else None
        if over:
            out["warnings"] = [*out.get("warnings", []), over]
        return out
    if not parts:
        raise BadInput("nothing to write: give content (CLI: on standard input or --file) or a partial update" if not ctx.agent
                       else "brain_put: nothing to write: give content, or " + " / ".join(PUT_PARTS))
    from ..core.history import put_operation
    from ..storage.origin import origin

    with origin(operation=put_operation(parts)):  # the history says which part: `put timeline_append`, not `put`
        return _put_part(b, a, ctx, parts)


def _put_part(b, a, ctx, parts: list[str]):
    """A put of part of a page (``parts``: compiled_truth, timeline_append, frontmatter): the
    named parts change, every other byte stays."""
    from ..page.markdown import BOM, append_timeline, edit_frontmatter, new_timeline_lines, timeline_target
    from ..page.slugs import check_slug

    row = b.resolve_for_write(a["slug"])  # as put's: never a page beside the ones meant
    if row is None and a.get("compiled_truth") is None:
        _no_page_for_part(b, a, ctx, parts)
    slug = row["slug"] if row else check_slug(a["slug"])
    text = b.check_text(row) if row else ""  # a partial update of a damaged text is refused
    page = b.parse_text(text, row["path"] if row else slug + ".md")
    nl = page.newline
    if a.get("replace") is not None:
        if a.get("compiled_truth") is not None:  # (it would write over what replace changed there)
            raise BadInput(f"give {ctx.flag('replace')} or {ctx.flag('compiled_truth')}, not both: put the change in the new compiled truth; nothing was written")
        before = page
        text, spans = _replaced(text, a["replace"], nl, slug, ctx)
        page = b.parse_text(text, page.path)
        _check_timeline_start(before, page, spans, ctx)
        entries_gone = len(before.timeline_entries) - len(page.timeline_entries)
    else:
        entries_gone = 0
    notion_before = None
    tags_off: list[str] = []
    if a.get("frontmatter") is not None:
        if not page.frontmatter_raw and row is not None:
            from ..page.markdown import notion_properties, to_lf

            notion_before = page if notion_properties(to_lf(page.body), page.path) else None
        tags_before = list(page.tags) if row is not None and "tags" in a["frontmatter"] else []
        _refuse_nul_values(a["frontmatter"])
        try:
            text = edit_frontmatter(page, a["frontmatter"])
        except ValueError as e:  # YAML that does not load: the page's state refuses it, as tag's (Brain._set_tags)
            raise Conflict(str(e)) from e
        page = b.parse_text(text, page.path)
        if tags_before:  # `tags` is set whole: an agent adding one this way took the others off (trial 70)
            from ..page.slugs import tag_identity

            now = {tag_identity(t) for t in page.tags}
            tags_off = [t for t in tags_before if tag_identity(t) not in now]
    if a.get("compiled_truth") is not None:
        ct = a["compiled_truth"].replace("\r\n", "\n").replace("\n", nl)
        old = page.compiled_truth
        lead = old[: len(old) - len(old.lstrip("\r\n"))]  # keep the blank line(s) under the frontmatter
        ct = lead + ct.lstrip("\r\n")
        if page.separator and not ct.endswith(nl):
            ct += nl + nl
        elif page.separator and not ct.endswith(nl + nl):
            ct += nl
        text = (BOM if page.bom else "") + page.frontmatter_raw + ct + page.separator + page.timeline
        timeline = page.timeline
        page = b.parse_text(text, page.path)
        if page.compiled_truth != ct or page.timeline != timeline:
            raise BadInput("compiled_truth has a line that is exactly '---', which would start the timeline; "
                           "use another rule (***) or rewrite the whole page with content")
        lost_section = _heading_section_lost(old, ct)
    for k in ("append", "timeline_append"):  # (an empty text said "unchanged", exit 0: a script's text gone missing, trial 50)
        if a.get(k) is not None and not a[k].strip():
            raise BadInput(f"{ctx.flag(k)} is empty: nothing to append; nothing was written")
    if a.get("append") is not None:
        from ..page.markdown import append_to_compiled_truth, open_threads_at

        add = a["append"].replace("\r\n", "\n").strip("\n").replace("\n", nl)
        if add.strip():
            from ..page.markdown import comment_open_at_end, unread_spans

            timeline, threads_at = page.timeline, open_threads_at(page)
            below = len(page.compiled_truth) - threads_at + 2 * len(page.newline) if threads_at is not None else 0  # (the section it goes above)
            text = append_to_compiled_truth(page, add)
            page = b.parse_text(text, page.path)
            if page.timeline != timeline:
                if any(ln.strip() == "---" for ln in add.splitlines()):
                    raise BadInput(f"{ctx.flag('append')} has a line that is exactly '---', which would start the timeline; "
                                   "use another rule (***); nothing was written")
                raise BadInput(f"{ctx.flag('append')} opens a block it does not close (a ``` fence, <!-- or %% comment), "
                               "which would hide the timeline below it: close it; nothing was written")
            if below:  # (above an Open Threads section: a block the text opens and leaves open hides the section)
                end = len(page.compiled_truth) - below
                if comment_open_at_end(page.compiled_truth[:end]) or any(x < end < z for x, z in unread_spans(page.compiled_truth)):
                    raise BadInput(f"{ctx.flag('append')} opens a block it does not close (a ``` fence, <!-- or %% comment), "
                                   "which would hide the Open Threads section it goes above: close it; nothing was written")
            at = page.compiled_truth.rfind(add)
            if comment_open_at_end(page.compiled_truth[:at]):
                raise BadInput(f"the compiled truth of {slug} ends inside an unclosed %% comment (Obsidian hides the rest of "
                               f"the note), which would hide {ctx.flag('append')}'s text; close it first ({ctx.flag('replace')}) or "
                               "rewrite the page with content; nothing was written")
            if page.separator and comment_open_at_end(page.compiled_truth):
                raise BadInput(f"{ctx.flag('append')} opens a %% comment it does not close, which would hide the timeline "
                               "below it: close it; nothing was written")
            if any(x < at < z for x, z in unread_spans(page.compiled_truth)):
                # (the compiled truth ends in an unclosed fence or HTML comment: the paragraph would go into it, unread)
                raise BadInput(f"the compiled truth of {slug} ends inside an unclosed block (a ``` fence or "
                               f"<!-- comment), which would hide {ctx.flag('append')}'s text; close it first ({ctx.flag('replace')}) or "
                               "rewrite the page with content; nothing was written")
    rule_note = None  # (timeline_append into a plain rule's section: Brain.timeline_add's note)
    if a.get("timeline_append") is not None:
        lines = a["timeline_append"].replace("\r\n", "\n").strip("\n")
        from ..page.markdown import is_timeline_line, timeline_date

        for ln in lines.split("\n"):
            if ln.strip() and not ln[0].isspace() and not is_timeline_line(ln):
                raise BadInput(f"{ctx.flag('timeline_append')}: {ln[:80]!r} is not a timeline line: give '- **YYYY-MM-DD** | summary' lines "
                               "(a detail line goes indented under its entry)")
            date = timeline_date(ln) if ln.strip() and not ln[0].isspace() else None
            if date is not None:
                import datetime as _dt

                try:
                    _dt.date.fromisoformat(date)
                except ValueError:  # as timeline-add refuses it (a file written by hand keeps it)
                    raise BadInput(f"{ctx.flag('timeline_append')}: not a real date: {date} (in {ln[:80]!r}); nothing was written") from None
        heading = b.timeline_split == "heading"
        base = timeline_target(page, heading)  # timeline-add's rule: entries already there are skipped
        lines, skipped = new_timeline_lines(base, lines)
        if lines:
            from ..core.brain import rule_as_separator_note

            rule_note = rule_as_separator_note(page, base, heading)
            text = append_timeline(page, lines.replace("\n", nl) + nl, heading=heading)
            added = sum(1 for ln in lines.split("\n") if is_timeline_line(ln))
            if len(b.parse_text(text, page.path).timeline_entries) < len(base.timeline_entries) + added:
                raise Conflict(f"{slug}: the timeline lines would not be recognised in this page's markdown (an unclosed code fence, "
                               "<!-- or %% comment, or a '---' line read as frontmatter); nothing was written. Edit the page with `gbrain get` / `gbrain put`.")
        if skipped:
            out = b.put(row["slug"] if row else slug, text).as_dict()
            what = "this entry" if skipped == 1 else f"these {skipped} entries"
            out["note"] = "; ".join(x for x in ((f"the timeline already has {skipped} of the entries given; the rest added" if lines
                                                  else f"the timeline already has {what}; nothing added"), rule_note) if x)
            return out
    out = b.put(row["slug"] if row else slug, text).as_dict()
    if rule_note and out.get("changed"):
        out["note"] = "; ".join(x for x in (out.get("note"), rule_note) if x)
    if a.get("compiled_truth") is not None and lost_section and out.get("changed"):
        out["warnings"] = [*out.get("warnings", []), _heading_section_words(b, out["slug"], *lost_section, ctx)]
    if entries_gone > 0 and out.get("changed"):
        out["warnings"] = [*out.get("warnings", []), _entries_gone_words(b, out["slug"], entries_gone, ctx)]
    if tags_off and out.get("changed"):
        out["warnings"] = [*out.get("warnings", []), f"frontmatter tags is set whole: {', '.join(tags_off)} no longer tag {out['slug']} "
                           f"(`gbrain tag {cmd_arg(out['slug'])} TAG` adds one tag and keeps the others)"]
    if notion_before is not None and out.get("changed") and (after := b.parse_text(text, page.path)).frontmatter_raw:
        out["warnings"] = [*out.get("warnings", []), _notion_unread(notion_before, after, out["slug"], a["frontmatter"], ctx)]
    return out


def _refuse_nul_values(value) -> None:
    """Raise ``BadInput`` (:data:`~gbrain.core.brain.NUL_TEXT`) when a key or string of the
    frontmatter given holds U+0000: its YAML would spell it ``"\\0"``, which loads to a NUL no
    Postgres text holds (SQLite kept it)."""
    from ..core.brain import refuse_nul

    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, str):
            refuse_nul(v, "the frontmatter given")
        elif isinstance(v, dict):
            todo += [*v.keys(), *v.values()]
        elif isinstance(v, list):
            todo += v


def _notion_unread(old, new, slug: str, keys, ctx) -> str:
    """The warning of a frontmatter put that gave a Notion export's page (read as Notion's only
    without frontmatter: :func:`gbrain.page.markdown.notion_properties`) a frontmatter block: what
    its property lines no longer do (the tags of its ``Tags:`` line, the pages of its relation
    properties), and the put taking the block away again (every key it set, null). Trial 57."""
    from ..page.markdown import notion_relation_links, to_lf
    from ..page.slugs import tag_identity

    have = {tag_identity(t) for t in new.all_tags}
    tags = [t for t in old.all_tags if tag_identity(t) not in have]
    names = list(dict.fromkeys(ln.text for ln in notion_relation_links(to_lf(old.body), old.path)))
    lost = "; ".join(x for x in ((f"its Tags: line tags nothing ({', '.join(tags)})" if tags else ""),
                                 (f"its relation properties link nothing ({', '.join(names)})" if names else "")) if x)
    undo = json.dumps({k: None for k in keys}, ensure_ascii=False)
    return (f"{slug} is a page of a Notion export, read as one only without frontmatter: with this block its property lines are text"
            f"{': ' + lost if lost else ''}. " + (f"A put of frontmatter {undo} takes the block away again" if ctx.agent
                                                  else f"`gbrain put {cmd_arg(slug)} --frontmatter {cmd_arg(undo)}` takes the block away again"))


def _replaced(text: str, pairs, nl: str, slug: str, ctx) -> str:
    """``text`` with each old text of ``pairs`` ({old: new}) replaced by its new one: put's
    ``replace`` (trial 48: a typo fixed without sending the page back whole). Each old text must
    occur exactly once in ``text`` (:class:`BadInput` naming the count: give more of the text
    around it); all are found in ``text`` as it was, so their order does not matter, and two that
    overlap are refused. A page whose lines end in ``\r\n`` takes ``\n`` in both as its line end;
    one that cuts a ``\r\n`` is refused. An old text not found as sent is looked for in the other
    Unicode form (NFC, NFD), its new text written in the form found (review48)."""
    import unicodedata

    from ..page.slugs import nfc

    flag = ctx.flag("replace")
    if not isinstance(pairs, dict) or not pairs:
        raise BadInput(f"{flag}: give an object of old text → new text, e.g. {{\"enery\": \"energy\"}}")
    spans = []
    for old, new in pairs.items():
        if not isinstance(new, str):
            raise BadInput(f"{flag}: the new text for {old[:60]!r} is not a string")
        if not old:
            raise BadInput(f"{flag}: an old text is empty; give the exact text to replace")
        if nl != "\n":
            old, new = old.replace("\r\n", "\n").replace("\n", nl), new.replace("\r\n", "\n").replace("\n", nl)
        n = text.count(old)
        if n == 0 and nfc(old) != unicodedata.normalize("NFD", old):  # the page's Unicode form (an NFD page, an NFC old text)
            forms = [f for f in ("NFC", "NFD") if unicodedata.normalize(f, old) in text]
            if len(forms) == 1:  # the new text in that form too: one page, one form
                old, new = unicodedata.normalize(forms[0], old), unicodedata.normalize(forms[0], new)
                n = text.count(old)
        if n != 1:
            read = "brain_get" if ctx.agent else f"`gbrain get {cmd_arg(slug)}`"
            raise BadInput(f"{flag}: {old[:80]!r} is not in {slug} ({read} shows its text as stored); nothing was written" if n == 0 else
                           f"{flag}: {old[:80]!r} occurs {n} times in {slug}; give more of the text around it, so it occurs once; nothing was written")
        i = text.index(old)
        if text[i - 1 : i + 1] == "\r\n" or text[i + len(old) - 1 : i + len(old) + 1] == "\r\n":
            raise BadInput(f"{flag}: {old[:80]!r} begins or ends inside a line end (between its \\r and \\n): "
                           "end it before the \\r or after the \\n; nothing was written")
        spans.append((i, i + len(old), new))
    spans.sort()
    for (a0, a1, _), (b0, _b1, _n) in zip(spans, spans[1:]):
        if b0 < a1:
            raise BadInput(f"{flag}: {text[a0:a1][:60]!r} and {text[b0:_b1][:60]!r} overlap; give them as one old text; nothing was written")
    out, at = [], 0
    for s0, s1, new in spans:
        out += [text[at:s0], new]
        at = s1
    return "".join(out) + text[at:], spans


def _timeline_at(page) -> int:
    """Where ``page``'s separator (the timeline's start) begins in its text."""
    return (1 if page.bom else 0) + len(page.frontmatter_raw) + len(page.compiled_truth)


def _check_timeline_start(before, after, spans, ctx) -> None:
    """Refuse (BadInput, nothing written) a ``replace`` that moves where the timeline starts: a new
    text holding a ``---`` line above it (or on a page with none) made compiled truth timeline,
    silently, where ``append`` and ``compiled_truth`` refuse such a line (trial 50). A replace of
    the separator itself is the writer's own edit of it; a ``---`` in code or below the timeline's
    start moves nothing."""
    at = _timeline_at(before)
    if before.separator and any(s0 < at + len(before.separator) and s1 > at for s0, s1, _ in spans):
        return
    want = at + sum(len(new) - (s1 - s0) for s0, s1, new in spans if s1 <= at)
    if before.separator and after.separator and _timeline_at(after) == want:
        return
    if not before.separator and not after.separator:
        return
    raise BadInput(f"{ctx.flag('replace')}: this would {'move where the timeline starts' if before.separator else 'start a timeline'} "
                   "(a line that is exactly '---', outside code, starts it); use another rule (***), or "
                   f"{ctx.flag('timeline_append')} for timeline lines; nothing was written")


_DATED_LINE = re.compile(r"^\s*[-*+]\s.*\b\d{4}-\d{2}-\d{2}\b")


def _heading_section_lost(old: str, new: str) -> tuple[str, int] | None:
    """``(heading, n)`` when the compiled truth ``old`` held a ``## Timeline`` / ``## History``
    section (a page with no ``---`` above it: gbrain-style and Obsidian notes keep their history
    so) whose ``n`` dated list lines the new compiled truth ``new`` lacks; else None (trial 33)."""
    from ..page.markdown import _TIMELINE_HEADING_RE

    lines = old.splitlines()
    for i, ln in enumerate(lines):
        if _TIMELINE_HEADING_RE.match(ln):
            dated = []
            for nxt in lines[i + 1:]:
                if nxt.startswith("#") and not nxt.startswith("###"):
                    break
                if _DATED_LINE.match(nxt):
                    dated.append(nxt.strip())
            have = {x.strip() for x in new.splitlines()}
            lost = [x for x in dated if x not in have]
            return (ln.strip(), len(lost)) if lost else None
    return None


def _way_back(b, slug: str, ctx) -> str:
    """``diff shows them, revert … brings the text before back``: the calls that show and undo the
    put just written to page ``slug`` (its version before the newest), in the surface's words."""
    v = b.conn.execute("SELECT max(version) FROM history WHERE kind = 'page' AND name = ? AND op <> 'delete' AND version < "
                       "(SELECT max(version) FROM history WHERE kind = 'page' AND name = ?)", (slug, slug)).fetchone()[0]
    if ctx.agent:
        return f"brain_diff {{\"slug\": \"{slug}\"}} shows them, brain_revert {{\"slug\": \"{slug}\", \"to\": {v}}} brings the text before back"
    return f"`gbrain diff {cmd_arg(slug)}` shows them, `gbrain revert {cmd_arg(slug)} --to {v}` brings the text before back"


def _entries_gone_words(b, slug: str, n: int, ctx) -> str:
    """The warning of a ``replace`` put that left ``n`` fewer timeline entries on page ``slug``:
    it took out the ``---`` separator (or entry lines), as a replace of a section read across it
    did (trial 72)."""
    return (f"{slug}: this replace leaves {n} timeline entr{'ies' if n != 1 else 'y'} fewer on the page (the `---` separator or the "
            f"entry lines were in the text replaced; the timeline is append-only): {_way_back(b, slug, ctx)}")


def _heading_section_words(b, slug: str, heading: str, n: int, ctx) -> str:
    """The warning of a compiled_truth put that dropped the page's own timeline section."""
    back = _way_back(b, slug, ctx)
    first = "brain_timeline_add" if ctx.agent else "timeline-add"
    return (f"{slug}: the compiled truth replaced held the page's own '{heading}' section with {n} dated line{'s' if n != 1 else ''} "
            f"the new one lacks; they are no longer on the page ({back}). On such a page run {first} first: it puts the "
            f"--- above that heading, and a compiled_truth put then leaves the section alone")


def _dropped(b, old, text: str, ctx) -> str | None:
    """The warning of an agent's whole-page put that left out the page's timeline entries or
    frontmatter keys (trial 26: a summary rewritten and put back as ``content`` took the
    frontmatter and every entry with it, the answer said nothing): what went, with the calls
    that show and bring back the text before (its version stays in the history); None."""
    from ..core.brain import render_row

    before, after = b.parse_text(render_row(old), old["path"]), b.parse_text(text, old["path"])
    had = {(e.date, e.source, e.summary) for e in before.timeline_entries}
    lost = len(had - {(e.date, e.source, e.summary) for e in after.timeline_entries})
    keys = [k for k in (before.frontmatter or {}) if k not in (after.frontmatter or {})] if isinstance(before.frontmatter, dict) else []
    if not lost and not keys:
        return None
    v = b.conn.execute("SELECT max(version) FROM history WHERE kind = 'page' AND name = ? AND op <> 'delete' AND version < "
                       "(SELECT max(version) FROM history WHERE kind = 'page' AND name = ?)", (old["slug"], old["slug"])).fetchone()[0]
    what = " and ".join(x for x in (f"{lost} timeline entr{'y' if lost == 1 else 'ies'}" if lost else "",
                                    f"the frontmatter keys {', '.join(map(str, keys[:8]))}{'…' if len(keys) > 8 else ''}" if keys else "") if x)
    back = f" (`gbrain diff {cmd_arg(old['slug'])}` shows them, `gbrain revert {cmd_arg(old['slug'])} --to {v}` brings the text before back)" if v else ""
    return (f"this put of the whole page left out {what} of {old['slug']}{back}; to rewrite only the text above the "
            f"timeline, put {ctx.flag('compiled_truth')} (frontmatter and timeline stay as they are)")


#: an agent's whole put with no ``if_hash`` that removes lines another writer's version added at
#: most this long before (s, by the database's clock) says so (:func:`_overwrote`): the span of a
#: read, a model's thinking and a put back
OVERWRITE_WINDOW_S = 600


def _last_version(b, slug: str):
    """The page ``slug``'s versions before a put written at most :data:`OVERWRITE_WINDOW_S`
    before it, newest first (at most :data:`OVERWRITE_VERSIONS`, stopping at a deletion or a
    move, and after this writer's own version unless a targeted edit, a tag or a timeline-add,
    which reads nothing: ``sync.engine.TARGETED_EDITS``): ``[(version, writer, age in s,
    body_id)]``, the newest always first (whatever its age); None (no history, no writer column,
    the newest a deletion)."""
    from ..core.history import has_writer

    if not has_writer(b.conn):
        return None
    rows = b.conn.execute("SELECT version, writer, at, body_id, op, operation, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), surface FROM history "
                          "WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT ?", (slug, OVERWRITE_VERSIONS + 1)).fetchall()
    if not rows or rows[0][3] is None:
        return None
    from datetime import datetime

    from ..storage.origin import identity
    from ..sync.engine import TARGETED_EDITS

    me = identity()

    def t(x: str) -> datetime:
        x = x.rstrip("Z")
        return datetime.strptime(x, "%Y-%m-%dT%H:%M:%S.%f" if "." in x else "%Y-%m-%dT%H:%M:%S")

    out = []
    for version, who, at, body_id, op, operation, now, surface in rows:
        if op == "create" and out:
            break  # a page's first text is what a reader of it read: no teammate's line laid over a read
        try:
            age = (t(now) - t(at)).total_seconds()
        except (ValueError, TypeError):
            break
        if body_id is None or (out and (age > OVERWRITE_WINDOW_S or op == "move")):
            break
        folder = surface in FOLDER_SURFACES  # a save in the folder: a person's, whoever's login (trial 38)
        out.append((version, who or "", age, body_id, folder))
        if who == me and not folder and operation not in TARGETED_EDITS:
            break  # this writer's own put: it had what came before (a tag, a timeline-add: not)
    return out or None


#: the history's surfaces of a version that came from the synced folder (a person's save there,
#: taken in by sync or watch, or an import of it): :func:`_overwrote` names its lines even when
#: the agent runs under the same login as the person (no GBRAIN_USER: both ``root@vm``)
FOLDER_SURFACES = ("sync", "watch", "import")


#: pages a session remembers its last read of (:attr:`Context.reads`; the oldest go first)
READS_KEPT = 10_000


def _remember(ctx, page_id: int, content_hash: str | None) -> None:
    """Note in the session's memory (``ctx.reads``; None: a one-shot surface, nothing kept) that
    it last read or wrote page ``page_id`` whole as ``content_hash``."""
    remember_read(ctx.reads if ctx is not None else None, page_id, content_hash)


def remember_read(reads: dict | None, page_id: int, content_hash: str | None) -> None:
    """:func:`_remember` on a session's memory itself (``Context.reads``): the MCP server's
    ``brain://pages/SLUG`` resource, read whole, notes it so (``mcp/server.py: _page_part``)."""
    if reads is None or not content_hash:
        return
    reads.pop(page_id, None)
    reads[page_id] = content_hash
    while len(reads) > READS_KEPT:
        reads.pop(next(iter(reads)))


def _merge_read(b, old, read: str, text: str) -> dict | None:
    """The three-way merge of a session's whole put with no ``if_hash`` of a page another writer
    changed since the session last read it whole (team trial 34: the agent read, bob saved a line,
    the agent put its edit of what it had read and bob's line went): base = the version the session
    read (``read``, its content_hash, looked up in the history as sync's base), theirs = the page
    now (``old``), ours = ``text``; the merge sync/watch make of a page both sides changed
    (``sync/merge.py: merge_edits``). ``{text, merged, theirs, base, since}``: ``text`` what
    to write (the merge; ``text`` itself when the edits clash, ``merged`` False); None when the base
    is not in the history (pruned), a side is over ``merge.MAX_BYTES`` or not UTF-8: as before."""
    from ..core.brain import render_row
    from ..core.history import body, key_for_path
    from ..sync.merge import MAX_BYTES, merge_edits

    c = b.conn
    kind, name = key_for_path(c, old["path"])
    r = c.execute("SELECT h.version, h.body_id FROM history h JOIN history_bodies hb ON hb.id = h.body_id WHERE h.kind = ? AND h.name = ? "
                  "AND hb.hash = ? AND hb.size <= ? ORDER BY h.version DESC LIMIT 1", (kind, name, read, MAX_BYTES)).fetchone()
    if r is None:
        return None
    try:
        base = body(c, r[1])
        ours = text.encode("utf-8")
    except (GBrainError, UnicodeEncodeError):
        return None
    theirs = render_row(old).encode("utf-8", "surrogateescape")
    since = [w for (w,) in c.execute("SELECT DISTINCT writer FROM history WHERE kind = ? AND name = ? AND version > ? AND writer <> '' "
                                     "ORDER BY writer", (kind, name, r[0]))]
    merged = merge_edits(base, theirs, ours, old["path"], b.timeline_split)
    if merged is None:
        return {"text": text, "merged": False, "theirs": theirs, "base": base, "since": since}
    return {"text": merged.decode("utf-8"), "merged": True, "theirs": theirs, "base": base, "since": since}


def _merge_said(b, old, m: dict, out: dict, ctx) -> dict:
    """What a put merged by :func:`_merge_read` adds to its answer. A clean merge: ``merged``
    true and a note naming the lines kept that the others wrote. A clash: as sync's
    ``both-changed`` conflict, the put's text is the page, the version it replaced is kept whole
    as a conflict copy (``conflict_copy``, a page; a ``sync_conflicts`` row, so `conflicts`
    lists it), and a warning says so."""
    from collections import Counter

    from ..core.history import version_writer
    from ..page.slugs import slug_for_path
    from ..storage.origin import origin
    from ..sync.engine import conflict_copy_path

    who = ", ".join(m["since"]) or "another writer"
    if m["merged"]:
        base = Counter(m["base"].decode("utf-8", "replace").splitlines())
        added = [ln for ln in (Counter(m["theirs"].decode("utf-8", "replace").splitlines()) - base) if ln.strip()]
        kept = [ln for ln in added if ln in set(m["text"].splitlines())]
        first = kept[0].strip() if kept else ""
        first = first if len(first) <= 80 else first[:79] + "…"
        lines = (f"; kept {len(kept)} line{'s' if len(kept) != 1 else ''} written since (\"{first}\")" if kept else "")
        note = f"merged: {old['slug']} changed since this session read it (by {who}); your edit and theirs are both on the page{lines}"
        return {"merged": True, "note": f"{out['note']}; {note}" if out.get("note") else note}
    c = b.conn
    cp = conflict_copy_path(old["path"], taken=lambda p: c.execute("SELECT 1 FROM pages WHERE path = ? UNION ALL SELECT 1 FROM files WHERE path = ?",
                                                                   (p, p)).fetchone() is not None)
    copy = slug_for_path(cp)
    from ..core.history import hashlib_sha, key_for_path

    by = version_writer(c, *key_for_path(c, old["path"]), old["content_hash"])
    with origin(operation="conflict copy", user=by or None):
        b.put(copy, m["theirs"].decode("utf-8", "surrogateescape"))
    c.execute("INSERT INTO sync_conflicts(path, copy_path, kind, file_hash, db_hash, base_hash) VALUES (?, ?, 'both-changed', ?, ?, ?)",
              (old["path"], cp, c.execute("SELECT content_hash FROM pages WHERE id = ?", (old["id"],)).fetchone()[0], old["content_hash"], hashlib_sha(m["base"])))
    warn = (f"conflict: {old['slug']} changed since this session read it (by {who}) and your edit changes the same lines; your text is "
            f"the page, the version it replaced is kept whole as the page {copy}: merge what it holds into {old['slug']}, then delete "
            f"{copy} (`gbrain conflicts` lists it)")
    return {"merged": False, "conflict_copy": copy, "warnings": [*out.get("warnings", []), warn]}


#: versions of the page looked at by :func:`_overwrote` (the newest ones)
OVERWRITE_VERSIONS = 8


def _overwrote(b, last, text: str, ctx) -> str | None:
    """The warning of an agent's whole put with no ``if_hash`` that removed lines the page held
    which another writer's version added at most :data:`OVERWRITE_WINDOW_S` before (``last``,
    :func:`_last_version`: the page's recent versions before the put, newest first; team trial
    34: the agent read the page, bob saved a line, the agent put its edit of what it had read,
    even after a timeline line of its own: bob's line left the page and the answer said
    nothing). How many lines went, the first of them and who wrote it, and the calls that show
    them and bring the text before the put back; None when no such line went."""
    from collections import Counter

    from ..core.history import body
    from ..page.slugs import cmd_arg
    from ..storage.origin import identity

    me = identity()
    c = b.conn
    newest = last[0]
    r = c.execute("SELECT name FROM history WHERE body_id = ? AND version = ? AND kind = 'page' LIMIT 1", (newest[3], newest[0])).fetchone()
    if r is None:
        return None
    slug = r[0]
    current = body(c, newest[3]).decode("utf-8", "replace").splitlines()
    keep = Counter(text.splitlines())
    theirs: dict[str, tuple[str, float, bool]] = {}  # a line another writer (or the folder) added → (who, how long ago, folder)
    for i, (version, who, age, body_id, folder) in enumerate(last):
        if not who or (who == me and not folder) or age > OVERWRITE_WINDOW_S:
            continue
        prev_id = last[i + 1][3] if i + 1 < len(last) else None
        if prev_id is None:
            p = c.execute("SELECT body_id FROM history WHERE kind = 'page' AND name = ? AND version < ? AND body_id IS NOT NULL "
                          "ORDER BY version DESC LIMIT 1", (slug, version)).fetchone()
            prev_id = p[0] if p else None
        if prev_id is None:
            continue  # the page's first text: what any reader of the page read
        mine = body(c, body_id).decode("utf-8", "replace").splitlines()
        before = body(c, prev_id).decode("utf-8", "replace").splitlines()
        for ln in Counter(ln for ln in mine if ln.strip()) - Counter(before):
            theirs.setdefault(ln, (who, age, folder))
    gone = [ln for ln in current if ln in theirs and not keep.get(ln)]
    if not gone:
        return None
    n = len(gone)
    who, age, folder = theirs[gone[0]]
    first = gone[0].strip()
    first = first if len(first) <= 80 else first[:79] + "…"
    when = f"{age:.0f} s" if age < 120 else f"{age / 60:.0f} min"
    get = "brain_get" if ctx.agent else "get"
    version = newest[0]
    wrote = f"{who} saved in the folder" if folder else f"{who} wrote"
    return (f"this put removed {n} line{'s' if n != 1 else ''} that {wrote} {when} before it (\"{first}\"; version {version} of "
            f"{slug} holds them); if you did not read them (without {ctx.flag('if_hash')} a put replaces whatever the page holds), "
            f"`gbrain diff {cmd_arg(slug)} {version}` shows what went and `gbrain revert {cmd_arg(slug)} --to {version}` brings the text "
            f"before this put back; read with {get} and put with its content_hash as {ctx.flag('if_hash')} to be told instead")


def _no_page_for_part(b, a, ctx, parts: list[str]) -> None:
    """Refuse (:class:`~gbrain.errors.NotFound`, as ``tag``/``timeline-add`` refuse a typo, with
    its did-you-mean) a partial put with no compiled truth of a page that does not exist: only
    frontmatter or timeline lines would make a page of nothing but those (``put priyaa
    --frontmatter …`` created ``priyaa.md`` beside ``people/priya``)."""
    from ..page.slugs import check_slug

    check_slug(a["slug"])
    read = _read_as(b, a["slug"])
    if read:
        raise BadInput(_read_as_words(a["slug"], read, ctx), suggestions=[read])
    try:
        b.resolve_slug(a["slug"])
        sugg: list[str] = []
        msg = f"no page '{a['slug']}'"
    except NotFound as e:
        sugg, msg = e.suggestions, str(e)
    given = " and ".join(ctx.flag(k) for k in parts)
    raise NotFound(f"{msg} (a put of only {given} changes a page that exists; to create the page, give "
                   f"{ctx.flag('content')} or {ctx.flag('compiled_truth')} too); nothing was written", sugg)


def _check_part_put_back(b, a, ctx) -> None:
    """An agent's whole-page put with no ``if_hash`` over a page longer than brain_get's default
    part (``max_chars``, 60,000 characters) whose last line the new text lacks: refused
    (BadInput, nothing written), since that is what putting back the first part of a long page
    looks like (the 2026-12-02 trial's loss, without if_hash). A put with the content_hash of a
    whole read as ``if_hash`` writes (a deliberate shortening)."""
    try:
        row = b.resolve_for_write(a["slug"])
    except NotFound:
        return  # Ambiguous: put's own lookup says it
    if row is None:
        return
    cap = REGISTRY["get"].tool_defaults.get("max_chars") or 0
    old = render_row_text(row)
    if not cap or len(old) <= cap:
        return
    last = next((ln.strip() for ln in reversed(old.splitlines()) if ln.strip()), "")
    if not last or last in a["content"]:
        return
    raise BadInput(f"{row['slug']} has {len(old):,} characters and brain_get gives a long page in parts ({cap:,} at a time): this "
                   f"put would drop its end (its last line is not in `content`), as putting back a part would; nothing was written. "
                   "Read it whole (brain_get with `max_chars` 0) and put with that read's content_hash as `if_hash` (a deliberate "
                   "shortening then writes), or change a part: `compiled_truth`, `timeline_append`, `frontmatter`")


def _check_part_token(row, name: str, part: tuple[int, int, str], a: dict, ctx) -> None:
    """Refuse (BadInput, nothing written) a put whose ``if_hash`` is a :func:`part_token` when the
    write would rest on text the read did not give: whole ``content`` (the unread rest of the page
    would be cut), or ``compiled_truth`` when the part did not hold all of the page's compiled
    truth. ``timeline_append`` and ``frontmatter`` (and a compiled truth the part held whole) pass
    on to the hash check."""
    start, end, _ = part
    agent = ctx.agent
    q = lambda k: f"`{ctx.flag(k)}`"  # noqa: E731
    ct = None
    if row is not None:
        ct_start = (1 if row["bom"] else 0) + len(row["frontmatter_raw"])
        ct = (ct_start, ct_start + len(row["compiled_truth"]))
    held = ct is not None and start <= ct[0] and end >= ct[1]
    whole = ("to rewrite the whole page, read it whole (brain_get with `max_chars` 0) and put with that read's content_hash"
             if agent else f"to rewrite the whole page, read it whole (`gbrain get {cmd_arg(name)} --json`) and put with its content_hash")
    parts = [q(p) for p in ["replace", "append", "timeline_append", "frontmatter"] + (["compiled_truth"] if held else [])]
    partial = (f"to change a part, put {', '.join(parts[:-1])} or {parts[-1]} with this content_hash"
               + ("" if held or ct is None else f" (a {q('compiled_truth')} too once a read holds all of it: characters {ct[0]:,} to {ct[1]:,})"))
    what = f"{q('if_hash')} is the content_hash of a part of {name} (characters {start:,} to {end:,}"
    if row is not None:
        what += f" of {len(render_row_text(row)):,}"
    what += ")"
    if a.get("content") is not None:
        raise BadInput(f"{what}: a put with {q('content')} replaces the whole page, so the rest of the page would be cut; "
                       f"nothing was written. {whole[0].upper() + whole[1:]}; {partial}")
    if a.get("compiled_truth") is not None and ct is not None and not held:
        raise BadInput(f"{what}, which does not hold all of its compiled truth (characters {ct[0]:,} to {ct[1]:,}): "
                       f"a {q('compiled_truth')} written from it would drop what was not read; nothing was written. "
                       f"{whole[0].upper() + whole[1:]}, or read a part that holds it (`offset`, `sections`); {q('timeline_append')} and "
                       f"{q('frontmatter')} take this content_hash")


def render_row_text(row) -> str:
    """The page text of a ``pages`` row (:func:`gbrain.core.brain.render_row`)."""
    from ..core.brain import render_row

    return render_row(row)


def _part_still_holds(b, row, name: str, part: tuple[int, int, str], a: dict) -> bool:
    """Whether a put of ``replace`` alone, whose ``if_hash`` is a :func:`part_token` of an older
    version (a section read, then a teammate's edit elsewhere in the page), rests only on text the
    read gave that is still there: the part read occurs once in the page now, unchanged, and every
    old text of the replace lies inside it (trial 49). Any other put keeps the whole-page check."""
    rep = a.get("replace")
    if not rep or any(a.get(k) is not None for k in ("content", "compiled_truth", "append", "timeline_append", "frontmatter")):
        return False
    start, end, hx = part
    r = b.conn.execute("SELECT h.body_id FROM history h JOIN history_bodies hb ON hb.id = h.body_id "
                       "WHERE h.kind = 'page' AND h.name = ? AND hb.hash = ? LIMIT 1", (name, hx)).fetchone()
    if r is None:
        return False
    from ..core.history import body as history_body

    try:
        then = history_body(b.conn, r[0]).decode("utf-8")
    except UnicodeDecodeError:
        return False
    if not 0 <= start < end <= len(then):
        return False
    seg, now = then[start:end], render_row_text(row)
    at = now.find(seg)
    if at < 0 or now.find(seg, at + 1) >= 0:
        return False
    for old in rep:
        i = now.find(old) if isinstance(old, str) and old else -1
        if i < at or i + len(old) > at + len(seg):
            return False
    return True


def _check_if_hash(b, a, ctx) -> None:
    """put's optimistic concurrency (inside its write transaction): refuse with
    :class:`~gbrain.errors.Conflict` (nothing written) unless the page's ``content_hash`` is
    still ``a["if_hash"]``; ``""`` means the page must not exist yet."""
    want = a["if_hash"].strip().lower()
    row = b.resolve_for_write(a["slug"])
    have = row["content_hash"] if row else ""
    name = row["slug"] if row else a["slug"]
    part = parse_part_token(want)
    if part is not None:
        _check_part_token(row, name, part, a, ctx)
        want = part[2]
    if want == have:
        return
    if part is not None and row is not None and _part_still_holds(b, row, name, part, a):
        return
    if not row and want and (read := _read_as(b, a["slug"])):
        raise BadInput(_read_as_words(a["slug"], read, ctx), suggestions=[read])
    if not row and want:
        newest = b.conn.execute("SELECT op, at, writer FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1",
                                (name,)).fetchone()
        if newest is not None and newest["op"] == "delete":  # trial 26: the person deleted the note meanwhile
            by = f" by {newest['writer']}" if newest["writer"] else ""
            raise Conflict(f"{name} was deleted since it was read ({newest['at'][:16].replace('T', ' ')} UTC{by}), maybe on purpose: "
                           f"nothing was written; ask before writing it again: `gbrain restore {cmd_arg(name)}` brings it back "
                           "whole, with its frontmatter and timeline (a put now would make a new page of only what it gives)")
    if not row:
        raise Conflict(f"{name}: there is no such page (it was deleted or renamed since it was read, or never existed); nothing was written"
                       + ("" if ctx.agent else f". `gbrain trash` and `gbrain history {cmd_arg(name)}` show where it went"))
    if not want:
        raise Conflict(f"{name} exists already ({ctx.flag('if_hash')} was empty: only a new page); nothing was written")
    how = "read it again with brain_get, redo the edit and put with its new content_hash" if ctx.agent else \
        f"read it again (`gbrain get {cmd_arg(name)} --json`), redo the edit and put with its new content_hash; `gbrain history {cmd_arg(name)}` shows the change"
    raise Conflict(f"{name} changed since it was read (content_hash {have[:12]}…, not {want[:12]}…); nothing was written: {how}")


@op(
    "delete",
    "Delete a page into the trash (its history keeps every version; brain_restore brings it back). Its .raw sidecar stays.",
    [SLUG],
    text=lambda r, a: (f"deleted {r['slug']} (in the trash: `gbrain restore {cmd_arg(r['slug'])}`)" + (f"; {r['note']}" if r.get("note") else "")
                       if r["changed"] else f"{r['slug']}: {r['note']}"),
    mutating=True,
    title="Delete a page",
    destructive=True,
    idempotent=True,  # deleting again: the page is in the trash already, nothing changes
    output=obj("slug", "changed", slug="string", changed="boolean", note="string"),
)
def _delete(b, a, ctx):
    with b.transaction():
        try:
            row = b.resolve_slug(a["slug"])
        except Ambiguous:
            raise
        except NotFound:
            from ..core.history import _find_deleted

            d = _find_deleted(b.conn, a["slug"])
            if d is None or d["kind"] != "page":
                raise
            return {"slug": d["name"], "changed": False, "note": f"already deleted, in the trash (`gbrain restore {cmd_arg(d['name'])}` brings it back)"}
        gone = b.delete_page(row["slug"])
        from ..sync.importer import promote_twin

        twin = promote_twin(b, row["path"])
        if twin is None:
            return {"slug": gone, "changed": True}
        from ..page.slugs import shown, unicode_form

        return {"slug": gone, "changed": True,
                "note": f"{shown(twin)}{unicode_form(twin)} was kept as a file beside it (another spelling of its name) and is now the page {shown(gone)}, "
                        f"as a fresh import makes it; delete {cmd_arg(gone)} again to remove that one too"}


def _check_move_twin(b, row, new: str, ctx) -> None:
    """Refuse (BadInput, exit 2, as put) a move of page ``row`` to ``new`` when ``new`` is another spelling of another
    page's name, as put refuses to create it (:func:`_check_spelling_twin`: case, accents,
    separators, a title a read finds by it); a re-spelling of the page's own name moves."""
    try:
        _check_spelling_twin(b, {"slug": new, "content": b.get_text(row["slug"])}, ctx)
    except BadInput as e:
        others = [s for s in e.suggestions if s != row["slug"]]
        if others:
            raise BadInput(f"'{new}' is another spelling of the name of the page {others[0]} (case, accents, separators: "
                           f"spaces, _, -, .; or its title): move {row['slug']} to a name of its own; nothing was changed",
                           suggestions=others) from None  # (bad input, exit 2, as put's refusal of the same name)


def _move_text(r: dict, a: dict) -> str:
    if not r["changed"]:
        return f"{r['slug']}: already there"
    out = f"moved {r['from']} → {r['slug']}"
    if r["relinked"]:
        out += f"; links to it rewritten in {', '.join(r['relinked'])}"
    out += "".join(f"\n  moved with it: {m['from']} → {m['to']}" for m in r.get("moved") or [])
    return out + "".join(f"\n  left as written: {s['slug']}: {s['reason']}" for s in r.get("skipped") or [])


def _defining_pages(b, path: str, skip: set[int]) -> list:
    """The pages but ``skip`` (ids) whose body may hold a link reference definition naming the
    file ``path`` (a ``]:`` and the file's name, as written or %-encoded): ``move`` repoints the
    definitions among them that name it (:func:`~gbrain.page.linkedit.repointed_path_links`,
    parser-checked), used or not."""
    from urllib.parse import quote

    stem = posixpath.basename(path)[:-3] if path.lower().endswith(".md") else posixpath.basename(path)
    names = {stem.casefold(), quote(stem).casefold()}  # (a path in another case names it as links resolve: `moved`)
    rows = b.conn.execute("SELECT * FROM pages WHERE instr(compiled_truth, ']:') > 0 OR instr(timeline, ']:') > 0 ORDER BY slug").fetchall()
    return [r for r in rows if r["id"] not in skip and any(n in r["compiled_truth"].casefold() or n in r["timeline"].casefold() for n in names)]


@op(
    "move",
    "Rename or move a page (`to`: its new slug, e.g. meetings/2026/sync), keeping history and .raw sidecar; links to it "
    "and its relative links are rewritten (`relinked`).",
    [SLUG, Param("to", required=True, positional=True, description="the new slug"),
     Param("if_hash", description="only if its content_hash is still this")],
    text=_move_text,
    mutating=True,
    title="Move or rename a page",
    details="A link is rewritten in the style it was written in, as `gbrain lint-fix` rewrites links to a moved page; one it cannot "
            "rewrite losslessly is left as written and listed under skipped. A synced folder's next sync moves the file.",
    output=obj("slug", "changed", slug="string", **{"from": "string"}, path="string", changed="boolean", content_hash="string", relinked="array", moved="array",
               skipped="array"),
)
def _move(b, a, ctx):
    from ..core import lint as lintmod

    from ..page.linkedit import repointed_path_links
    from ..page.slugs import check_slug, copy_original, is_page_copy, slug_for_path

    with b.transaction():
        before = b.resolve_slug(a["slug"])
        if a.get("if_hash") is not None:
            part = parse_part_token(a["if_hash"])
            want = part[2] if part else a["if_hash"].strip().lower()
            if want != before["content_hash"]:
                how = "read it again with brain_get" if ctx.agent else f"read it again (`gbrain get {cmd_arg(before['slug'])} --json`)"
                raise Conflict(f"{before['slug']} changed since it was read (content_hash {before['content_hash'][:12]}…, not {want[:12]}…); "
                               f"nothing was moved: {how}, then move it with its new content_hash")
        _check_move_twin(b, before, check_slug(a["to"]), ctx)
        linking = {r[0] for r in b.conn.execute("SELECT DISTINCT p.slug FROM links l JOIN pages p ON p.id = l.from_page_id "
                                                "WHERE l.to_page_id = ? AND l.from_page_id != ?", (before["id"], before["id"]))}
        held = b.canvas_backlinks(before["id"]) + b.nav_backlinks(before["id"])
        row, new = b.move_page(before["slug"], a["to"])
        if new == row["slug"]:
            return {"slug": new, "from": new, "path": row["path"], "changed": False, "content_hash": row["content_hash"], "relinked": []}
        # its own relative paths to files and pages (an image, a PDF: no link row follows them)
        now = b.conn.execute("SELECT * FROM pages WHERE id = ?", (row["id"],)).fetchone()

        def moved(path: str) -> str | None:
            if row["path"] in (path, path + ".md"):
                return now["path"]
            # in another case (`../people/BO.md`), as a link resolves it, unless it is the exact name of another page or file
            if row["path"].casefold() in (path.casefold(), (path + ".md").casefold()) and not b.conn.execute(
                    "SELECT 1 FROM files WHERE path = ? UNION ALL SELECT 1 FROM pages WHERE path IN (?, ?)", (path, path, path + ".md")).fetchone():
                return now["path"]
            return None

        def where(path: str) -> str | None:
            hit = moved(path) or b.conn.execute("SELECT path FROM files WHERE path = ? UNION ALL SELECT path FROM pages WHERE path IN (?, ?)",
                                                (path, path, path + ".md")).fetchone()
            return hit if isinstance(hit, str) else hit[0] if hit else None

        text = b.check_text(now)
        own = text if is_page_copy(now["slug"]) else repointed_path_links(text, row["path"], now["path"], where, bare=True)
        if own != text:
            b.save_page(now["path"], own)
        # a conflict copy linking it (gbrain's `NAME.conflict-…`, a file-sync tool's) is a record of what someone saved:
        # never rewritten, said
        copies = sorted(s for s in linking if is_page_copy(s))
        linking -= set(copies)
        # a page an older gbrain stored under a hidden name (slugs.HIDDEN_WHY): a file to be, whose links gbrain never
        # rewrites (every edit of one refuses, slugs.hidden_page_write): left as written, said
        hidden = sorted(s for s in linking if is_hidden_path(s))
        linking -= set(hidden)
        # the other pages' relative paths to it (`bo.md`, `../people/bo.md`, `[[../people/bo]]`, a reference definition), in
        # their style, before lint-fix mends the links by name: a bare `bo.md` still found by name is wrong on GitHub
        repointed = []
        pages = b.conn.execute(f"SELECT * FROM pages WHERE slug IN ({','.join('?' * len(linking))})", sorted(linking)).fetchall() if linking else []
        # and a reference definition naming its file on a page that does not link it (`[id]: ../people/bo.md` no `[t][id]`
        # uses is no link: it was repointed only on a page that also linked the page otherwise)
        pages += [p for p in _defining_pages(b, row["path"], {row["id"], *(p["id"] for p in pages)})
                  if not is_page_copy(p["slug"]) and not is_hidden_path(p["path"])]
        for p in pages:
            text = b.check_text(p)
            to_it = repointed_path_links(text, p["path"], p["path"], moved, bare=True)
            if to_it != text:
                b.save_page(p["path"], to_it)
                repointed.append(p["slug"])
        plan = lintmod.plan_link_fixes(b, only=linking | {new}, to=new, moved_from=row["slug"])
        fixed, skipped = lintmod.apply_link_fixes(b, plan["pages"])
        cur = b.conn.execute("SELECT path, content_hash FROM pages WHERE id = ?", (row["id"],)).fetchone()
        # its own conflict copies (and its sidecars') travel with it, as its sidecar does: the copy name of the new
        # path, their mark kept, their sync record with them (`gbrain conflicts`, lint); a copy's text is rewritten
        # only where its relative links must name from a new folder what they named (relink_moved_copy)
        from ..sync.engine import copy_renames, move_copy

        copy_moves, copies_left = copy_renames(b, row["path"], cur["path"])
        for old_cp, new_cp, new_orig in copy_moves:
            move_copy(b, old_cp, new_cp, new_orig, (row["path"], cur["path"]))
        # a canvas or nav file that listed it by path (gbrain never rewrites one): said, with where to point it
        if held:
            still = {x["slug"] for x in b.canvas_backlinks(row["id"]) + b.nav_backlinks(row["id"])}
            skipped += [{"slug": x["slug"], "reason": f"{x['forms'][0]} still names {row['path']} (gbrain never rewrites a "
                         f"{'canvas' if x['type'] == 'canvas' else 'nav file'}): point it at {cur['path']} in the file"}
                        for x in held if x["slug"] not in still]
    out = {"slug": new, "from": row["slug"], "path": cur["path"], "changed": True, "content_hash": cur["content_hash"],
           "relinked": sorted({f["slug"] for f in fixed if f["slug"] != new} | set(repointed))}
    skipped += [{"slug": s, "reason": f"a conflict copy (a record of what someone saved): its links to {row['slug']} are left as written; "
                 f"merge it into {copy_original(s)}, then delete it"} for s in copies]
    skipped += [{"slug": s, "reason": f"a page an older gbrain stored under a hidden name (a file at the next import or sync, whose "
                 f"links gbrain never rewrites): its links to {row['slug']} are left as written"} for s in hidden]
    if copy_moves:
        out["moved"] = [{"from": o, "to": n} for o, n, _ in copy_moves]
    # a copy whose new name is taken (a file-sync tool's: no `-2` for it) stays where it is: said, with the page to merge it into
    skipped += [{"slug": slug_for_path(p) if p.lower().endswith(".md") else p,
                 "reason": f"a conflict copy of {row['slug']}{'' if p.lower().endswith('.md') else chr(39) + 's .raw sidecar'}, left where it is "
                           f"({why}): merge it into {new}, then delete it"} for p, why in copies_left]
    if skipped or plan["skipped"]:
        out["skipped"] = [{"slug": s["slug"], "reason": s["reason"]} for s in plan["skipped"] + skipped]
    return out


@op(
    "list",
    "List pages with filters, sorted by slug, last update (newest first), creation (newest first) or title.",
    [
        TYPE,
        TAG,
        PREFIX,
        limit_param(50, "maximum number of pages (0: all)"),
        Param("sort", description="slug | updated | created | title", default="slug", enum=["slug", "updated", "created", "title"]),
        Param("since", description="only pages updated since: an ISO date/time or a span like 24h, 7d"),
    ],
    title="List pages",
    item=obj("slug", **PAGE_REF, updated_at="string?"),
    page="limit",
    # keyset pages: a page written between two pages (to the front of `sort: updated`) moves no other row
    page_seek=lambda a, row: Brain.list_position(a.get("sort") or "slug", row),
    text=lambda r, a: _rows(r, ["slug", "type", "title"]),
    note=cut_note,
)
def _list(b, a, ctx):
    since = _since(a.get("since"), ctx.flag("since"))
    out = b.list_pages(type=a.get("type"), tag=a.get("tag"), prefix=a.get("prefix"), limit=a.get("limit"), sort=a.get("sort") or "slug", since=since,
                       after=ctx.after)
    if not out and ctx.after is None:
        b.check_filters(a.get("type"), a.get("tag"), a.get("prefix"), ctx.on_warning)
    return out


def _hits_text(hits: list[dict]) -> str:
    """Search hits as text, with the score (comparable within one search: the best keyword
    match alone scores 1, a page named by the query more) and the fields that matched; a conflict
    copy (sync's or a file-sync tool's: :func:`~gbrain.page.slugs.copy_original`) says whose copy
    it is after its title (:func:`~gbrain.operations.registry.copy_mark`)."""
    if not hits:
        return Nothing("no matches")
    return "\n".join(
        f"{h['slug']}  ({score_text(h['score'])}" + (f"; {', '.join(h['signals'])}" if h.get("signals") else "") + f")  {h['title']}{copy_mark(h['slug'])}\n    {_marked(h)}"
        for h in hits
    )


def score_text(x: float) -> str:
    """A score as text: 2 decimals, 2 significant digits below 0.01 (``0.0033``, ``2.4e-07``): a
    match of tiny score read 0.00, as if it scored nothing (trial 30)."""
    return f"{x:.2f}" if not x or abs(x) >= 0.01 else f"{x:.2g}"


def _marked(hit: dict) -> str:
    """A hit's snippet with its ``highlights`` between the CLI's style marks (``entry.styled``:
    bold on a terminal, nothing elsewhere; the snippet holds no such character of its own)."""
    s, out, pos = hit["snippet"], [], 0
    for a, b in hit.get("highlights") or []:
        out += [s[pos:a], HIT_STYLE[0], s[a:b], HIT_STYLE[1]]
        pos = b
    return "".join(out) + s[pos:]


def _stats_text(r: dict, a: dict) -> str:
    lines = [f"Pages: {r['pages']:,}"] + [f"  {t}: {n:,}" for t, n in r["by_type"].items()]
    lines += [
        f"Links: {r['links']:,} ({r['links_resolved']:,} resolved, {r['links_dangling']:,} dangling)",
        f"Tags: {r['tags']:,} ({r['unique_tags']:,} unique)",
        f"Raw data: {r['raw_data']:,}",
        f"Timeline entries: {r['timeline_entries']:,}",
        f"Embeddings: {r['embeddings']:,} chunks" + (" (" + ", ".join(f"{m}: {n:,}" for m, n in r.get("embeddings_by_model", {}).items()) + ")" if r.get("embeddings_by_model") else ""),
    ]
    if r.get("embedding_model"):
        left = r["pages_to_embed"]
        lines.append(f"  query uses {r['embedding_model']}: {r['pages_embedded']:,} of {r['pages']:,} pages embedded"
                     + (f", {left:,} to embed, new or changed since (`gbrain embed`)" if left else "")
                     + (f"; {r['chunks_split']:,} chunk(s) split for the model's window" if r.get("chunks_split") else ""))
    lines += [
        f"Other files: {r['files']:,} ({r['files_bytes'] / 1e6:.1f} MB)",
        f"History: {r['history_bytes'] / 1e6:.1f} MB (replaced and deleted versions' texts, compressed; `gbrain history --prune` drops old ones)",
        f"Ingest log: {r['ingest_log']:,}",
        f"DB size: {r['db_bytes'] / 1e6:.1f} MB" + (f" ({r['free_bytes'] / 1e6:.1f} MB of it free: a VACUUM gives it back, docs/history.md#retention)"
                                                    if r.get("free_bytes") and r["free_bytes"] >= 0.1 * r["db_bytes"] else ""),
    ]
    if r.get("history_versions") is not None:
        i = next(n for n, x in enumerate(lines) if x.startswith("History: "))
        tb = r.get("history_table_bytes")
        share = f"; with their rows and indexes {tb / 1e6:.1f} MB, {100 * tb / r['db_bytes']:.0f}% of the DB" if tb is not None and r["db_bytes"] else ""
        lines.insert(i + 1, f"  {r['history_versions']:,} version(s), the current ones included{share}")
    return "\n".join(lines)


@op("stats", "Brain statistics: pages by type, links, tags, raw data, timeline entries, embeddings.", [], text=_stats_text, title="Brain statistics",
    output=obj("pages", pages="integer", by_type="object", links="integer", tags="integer", timeline_entries="integer", embeddings="integer", db_bytes="integer",
               embedding_model="string?", pages_embedded="integer?", pages_to_embed="integer?"))
def _stats(b, a, ctx):
    r = b.stats()
    if r["pages"]:
        # the model `query` reads, and its pages never embedded or changed since (`embed`'s selection)
        from ..search.embeddings import chunking_of
        from ..search.vectors import active_model, stale_count

        model, _ = active_model(b.conn, b.config())
        left = stale_count(b.conn, model.model_id, chunking_of(model))
        # the chunks its own tokenizer found over its window, split (search/chunking.py: _fitted)
        split = b.conn.execute("SELECT COALESCE(SUM(window_splits), 0) FROM embed_state WHERE model = ?", (model.model_id,)).fetchone()[0]
        r.update(embedding_model=model.model_id, pages_embedded=r["pages"] - left, pages_to_embed=left, chunks_split=int(split))
    return r


_OBSIDIAN_OPERATOR = re.compile(r'(?:^|(?<=[\s(]))-?(tag|path|file|content|line|block|section|task|task-todo|task-done|match-case|ignore-case):("[^"]*"|\([^)]*\)?|[^\s()"]+)')


def obsidian_operator_note(query: str, ctx) -> str | None:
    """A note for ``query`` when it holds Obsidian search operators (``tag:#x``, ``path:"a b"``,
    ``file:x``, ``line:(…)``, …): gbrain's search reads them as words (its help says so), and a
    person coming from Obsidian meant a filter (trial 71). The note names the filter in the
    surface's spelling (``--tag x`` on the command line, ``"tag": "x"`` for an agent: ``ctx``'s
    :meth:`Context.flag` and ``agent``). None when there is none (a colon in ``3:1``, a URL,
    ``tags:``, a label before a space, ``task: write it``, or text in quotes is no operator: an
    operator's value follows its colon at once)."""
    found = _OBSIDIAN_OPERATOR.findall(query)
    if not found:
        return None

    def param(name: str, value: str) -> str:
        if ctx is not None and ctx.agent:
            return f'"{name}": "{value.strip(chr(34))}"'
        return f"{ctx.flag(name) if ctx is not None else '--' + name} {value}"

    said, tips = [], []
    for op_name, value in found:
        if f"{op_name}:" in said:
            continue
        said.append(f"{op_name}:")
        if op_name == "tag" and value.lstrip("#"):
            tips.append(f"to keep only pages tagged {value.lstrip('#')}, " + param("tag", value.lstrip("#")))
        elif op_name == "path" and value:
            tips.append(f"to keep only pages under {value}, " + param("prefix", value))
        elif op_name == "file":
            tips.append("a page whose title or file name is the query comes first anyway")
    ops_said = ", ".join(said)
    return (f"{ops_said} {'is' if len(said) == 1 else 'are'} Obsidian search syntax: here {'it is' if len(said) == 1 else 'they are'} "
            "searched as words" + ("; " + "; ".join(tips) if tips else ""))


@op(
    "search",
    "Keyword search over title, aliases, path, headings, text and frontmatter values; a page the query names (title, alias, file "
    "name) comes first. Any text is safe: \"a quoted phrase\" matches the words in order, word* matches word starts, nothing else is "
    "syntax. Each hit has a `snippet` with `highlights` ([start, end) offsets into it). Filters apply before the limit.",
    [Param("query", description="search words (any text)", required=True, positional=True),
     TYPE, TAG, PREFIX, LIMIT, SINCE],
    text=lambda r, a: _hits_text(r),
    title="Keyword search",
    details="Ranked by BM25 (FTS5 on SQLite; Postgres alike); a page needs one of the words (more rank higher), and a typed or pasted "
    "sentence or phrase puts the page holding its words in that order first. Each hit lists the fields that matched (signals); its "
    "snippet shows link syntax as the link's name, without comments and emphasis marks. -, :, &, |, !, <->, AND, OR, NOT, NEAR are "
    "plain words and an unpaired quote or a lone * is ignored (a query of nothing but those is empty: an error).",
    item=obj("slug", **PAGE_REF, score="number", snippet="string", highlights={"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}),
    page="limit",
    rank_depth=ANY_DEPTH,
    rank_skip=True,
)
def _search(b, a, ctx):
    if empty_query(a["query"]):
        raise BadInput("the query is empty")  # as query's "the question is empty": bad input, exit 2
    hint = obsidian_operator_note(a["query"], ctx)
    if hint and ctx.on_warning:
        ctx.on_warning(hint)
    held: dict = {}  # (each word looked up once)
    fix = suggest(b.conn, a["query"], held)  # typo tolerance: the words no page holds (search/spell.py)
    # a word no page holds as a word, no typo of one, that the index holds inside longer words (a
    # compound's part, German ``Haftpflicht``): those words are searched instead, said so (spell.inside)
    ins = inside(b.conn, a["query"], skip={w for w, _ in fix.words} if fix else set(), memo=held)
    query = a["query"]
    if ins:
        query = ins.query
        fix = fix and suggest(b.conn, query, held)
        if ctx.on_warning:
            ctx.on_warning(ins.note())
    since = _since(a.get("since"), ctx.flag("since"))
    skip = ctx.skip  # (an agent's page past the first: run_tool, rank_skip)

    def found(q: str, **more) -> list[dict]:  # (the filters asked, on the query as typed or as corrected)
        return fts_search(b.conn, q, type=a.get("type"), tag=a.get("tag"), prefix=a.get("prefix"), since=since, **more)
    hits = found(query, limit=a["limit"], offset=skip, warn=ctx.on_warning)
    # the query as typed found nothing (a page past its first asks whether the first held any): the corrected one's hits
    searched = bool(fix) and not hits and not (skip and found(query, limit=1))
    if searched:
        hits = found(fix.query, limit=a["limit"], offset=skip, warn=ctx.on_warning)
    if fix and ctx.on_warning:
        ctx.on_warning(fix.note(searched=searched and bool(hits)))
    if not hits and not skip:
        b.check_filters(a.get("type"), a.get("tag"), a.get("prefix"), ctx.on_warning)
    return hits


def _tags_text(r, a) -> str:
    if r and isinstance(r[0], str):
        return "\n".join(r)
    rows = [{**t, "spellings": ", ".join(t["spellings"]) if len(t["spellings"]) > 1 else ""} for t in r]
    return _rows(rows, ["tag", "pages", "spellings"])


@op(
    "tags",
    "The tags of a page (frontmatter and inline #tags); no slug: every tag of the brain once (any case), with its page count and spellings (when several), most used first.",
    [Param("slug", description="page slug", positional=True)],
    title="List tags",
    item={"type": ["string", "object"]},
    text=_tags_text,
    page="slice",  # an agent's page: the 100 most used tags, then next_cursor (a vault had 524 tags, 34 KB; trial 48: 200 were 12,858 B)
    page_size=100,
    page_pin=True,  # most used first: a write between two pages reorders it
)
def _tags(b, a, ctx):
    if a.get("slug"):
        return b.tags(read_slug(b, a["slug"], ctx)[0])
    if ctx.agent:  # `spellings` only where there are several (trial 48: most rows repeated the tag and its count)
        return [t if len(t["spellings"]) > 1 else {"tag": t["tag"], "pages": t["pages"]} for t in b.all_tags()]
    return b.all_tags()


@op(
    "tag",
    "Add a tag to a page's frontmatter `tags` or Notion `Tags:` line (brain_untag removes one); a tag it has changes nothing.",
    [SLUG, Param("tag", required=True, positional=True, description="tag to add"), Param("remove", "boolean", "remove the tag instead (same as `gbrain untag`)", default=False, in_schema=False)],
    text=_saved,
    mutating=True,
    title="Add a tag",
    details="A tag other pages spell otherwise but for case or Unicode form (Energy beside energy) is written as most of them spell it, "
            "as Obsidian matches tags in any case; the answer's note says so.",
    idempotent=True,
    output=SAVED,
)
def _tag(b, a, ctx):
    if a.get("remove"):
        return _follow(b, a, lambda x: b.untag(x["slug"], x["tag"]).as_dict())
    return _follow(b, a, lambda x: b.tag(x["slug"], x["tag"]).as_dict())


@op("untag", "Remove a tag where brain_tag writes it.", [SLUG, Param("tag", required=True, positional=True, description="tag to remove")], text=_saved, mutating=True,
    title="Remove a tag", destructive=True, idempotent=True, output=SAVED,
    details="Every spelling of it, from the frontmatter `tags` or (a Notion export's page) the item of its Tags: line, the line "
            "with it when it was the only one. A tag written only inline (#tag, a Logseq tags:: line) is refused, naming it: edit the text.")
def _untag(b, a, ctx):
    return _follow(b, a, lambda x: b.untag(x["slug"], x["tag"]).as_dict())


@op(
    "link",
    "Link one page to another: appends [Title](relative.md) to the source page's compiled truth, or [[Name]] where the page (or, for a page without links, the brain) mostly uses wiki links; nothing when it links there already.",
    [
        Param("from", required=True, positional=True, description="slug of the page that links"),
        Param("to", required=True, positional=True, description="the page linked to: its slug, or its name as a [[wiki link]] finds it (title, alias, file name)"),
        Param("context", description="a short sentence saying why (added after the link)", default=""),
    ],
    text=_saved,
    mutating=True,
    idempotent=True,  # linking again where it links already adds nothing (changed: false)
    title="Link two pages",
    output=SAVED,
)
def _link(b, a, ctx):
    return _follow(b, a, lambda x: b.link(x["from"], x["to"], x.get("context") or "").as_dict(), ("from", "to"))


@op(
    "unlink",
    "Remove the links from one page to another (the link text stays as plain text).",
    [Param("from", required=True, positional=True, description="slug of the page that links"), Param("to", required=True, positional=True, description="the page linked to, named as for brain_link, or a dead link's target as written")],
    text=_saved,
    mutating=True,
    title="Unlink two pages",
    destructive=True,
    idempotent=True,
    output=SAVED,
)
def _unlink(b, a, ctx):
    def write(x):
        try:  # a dead link written with the old name is removed as written
            return b.unlink(x["from"], x["to"]).as_dict()
        except NotFound:
            moved = _moved_page(b, x["to"])
            if moved is None:
                raise
            out = b.unlink(x["from"], moved["slug"]).as_dict()
            out["note"] = f"{moved['words']}; unlinked {moved['slug']}"
            return out

    return _follow(b, a, write, ("from",))


def _as_labels(x: dict) -> str:
    """A link's labels (``links.label``) for the text of ``links``/``backlinks``: `` as "the seed fund"``."""
    return " as " + ", ".join(json.dumps(v, ensure_ascii=False) for v in x["labels"]) if x.get("labels") else ""


@op(
    "links",
    "Outbound links of a page, one per linked page (resolved or dangling), with count and forms; a wiki link in a frontmatter value has kind property.",
    [SLUG, limit_param(100, "maximum number of links (0: all)")],
    title="Links from a page",
    item=obj("target", target="string", to_slug="string?", kind="string", context="string", count="integer", forms="array"),
    page="limit",
    text=lambda r, a: "\n".join(f"{x['to_slug'] or '(dangling) ' + x['target']}  x{x['count']} {' '.join(x['forms'])}{_as_labels(x)}  {x['context']}" for x in r) or Nothing("(no links)"),
    note=cut_note,
)
def _links(b, a, ctx):
    try:
        out = b.links(read_slug(b, a["slug"], ctx)[0])
    except NotFound:
        path = b.stored_file_path(a["slug"])  # a canvas: its file nodes and its text cards' links; a nav file: its entries
        if path is not None and is_nav_file(path):
            out = b.nav_links(path)
        elif path is None or not path.lower().endswith(".canvas"):
            raise
        else:
            out = b.canvas_links(path)
    return out[: a["limit"]] if a.get("limit") else out


@op(
    "backlinks",
    "Pages (canvases, TOCs) linking to a page or file, each once, with count and forms (body or frontmatter value).",
    [SLUG, limit_param(100, "maximum number of pages (0: all)")],
    title="Backlinks of a page",
    item=obj("slug", **PAGE_REF, context="string", count="integer", forms="array"),
    page="limit",
    text=lambda r, a: "\n".join(f"{x['slug']}  x{x['count']} {' '.join(x['forms'])}{_as_labels(x)}  {x['context']}" for x in r) or Nothing("(no backlinks)"),
    note=cut_note,
    page_seek=lambda a, x: None,  # (keyset: the handler gives each item's position, Context.seeks: its part is not in the item)
)
def _backlinks(b, a, ctx):
    try:
        parts = b.backlink_parts(read_slug(b, a["slug"], ctx)[0])
    except NotFound:
        path = b.stored_file_path(a["slug"])  # an attachment: the pages that link to or embed it
        out = b.file_backlinks(path) if path is not None else b.name_backlinks(a["slug"])  # a Logseq page with no file
        if path is None and not out:
            raise
        parts = (out,)
    # each item's position: [its part (pages, canvases, nav files), its slug]; each part is in slug order
    rows = [([n, x["slug"]], x) for n, part in enumerate(parts) for x in part]
    if ctx.after is not None:  # keyset pages: a page linking here written meanwhile moves no other
        if len(ctx.after) != 2 or type(ctx.after[0]) is not int or not isinstance(ctx.after[1], str):
            raise BadInput("backlinks: a position is [part, slug]")
        rows = [r for r in rows if r[0] > ctx.after]
    rows = rows[: a["limit"]] if a.get("limit") else rows
    if ctx.seeks is not None:
        ctx.seeks += [pos for pos, _x in rows]
    return [x for _pos, x in rows]


def _timeline_text(r: list, a: dict) -> str:
    return "\n".join(f"{e['date']}  {e['slug'] + '  ' if 'slug' in e else ''}{e['source'] + ' — ' if e['source'] else ''}{e['summary']}" for e in r) or Nothing("(no timeline entries)")


@op(
    "timeline",
    "Timeline entries of a page, or of every page (no `slug`), newest first.",
    [
        Param("slug", positional=True, description="page slug (none: every page)"),
        Param("since", description="YYYY-MM-DD, YYYY-MM or YYYY, inclusive", details="or a span back from today: 7d, 2w, today, yesterday"),
        Param("until", description="as `since`, inclusive"),
        limit_param(100, "maximum number of entries (0: all)"),
    ],
    title="Timeline entries",
    details="Dates compare as written: one that is no real date (2025-02-30) sorts where its text does; "
            "2025-03 as `since` starts at 2025-03-01 and as `until` ends with March.",
    # and, of every page's timeline, the entry's slug: left out of the schema, whose bytes every tools/list carries
    item=obj("date", "summary", date="string", source="string", summary="string", detail="string"),
    page="limit",
    # keyset pages: entries written meanwhile move no entry of a page left unchanged (positions: Brain.timeline)
    page_seek=lambda a, e: None,
    text=_timeline_text,
    note=cut_note,
)
def _timeline(b, a, ctx):
    since, until = _date_bound(a.get("since"), ctx.flag("since")), _date_bound(a.get("until"), ctx.flag("until"), end=True)
    if since and until and since > until:
        raise BadInput(f"{ctx.flag('since')} {a['since']} is after {ctx.flag('until')} {a['until']}")
    slug = read_slug(b, a["slug"], ctx)[0] if a.get("slug") else None
    # (every surface answers one shape, an empty `detail` too: call and pipe answer in MCP's shape, scripts read it)
    return _timeline_rows(b, a, ctx, slug, since, until)


def _timeline_rows(b, a, ctx, slug, since, until):
    if slug is not None:
        return b.timeline(slug, a.get("limit") or None, since, until, after=ctx.after, positions=ctx.seeks)
    # every page's: a conflict copy repeats its page's entries (trial 70: a briefing read each event twice)
    left, copies = b.timeline_copy_entries(since, until)
    if left and ctx.on_warning:
        ctx.on_warning(f"{left:,} {'entry' if left == 1 else 'entries'} of {copies:,} conflict cop{'y' if copies == 1 else 'ies'} left out "
                       "(a copy repeats its page's): `gbrain timeline COPY` lists a copy's, `gbrain conflicts` names the copies")
    return b.timeline(None, a.get("limit") or None, since, until, copies=False, after=ctx.after, positions=ctx.seeks)


def _date_bound(v: str | None, name: str, end: bool = False) -> str | None:
    """A timeline's ``since``/``until`` as the ``YYYY-MM-DD`` text the entries' dates compare
    with (inclusive): ``2025-03-04``; a month or year from its start (``2025-03`` → ``2025-03-00``)
    or, ``end``, to its end (``2025-03-99``, so every date written in March is in: ``2025-03-31``,
    and ``2025-03-32`` too); a span back from today (``7d``, ``2w``, ``today``, ``yesterday``:
    the local date). Raises BadInput for anything else, or a date that is no real one."""
    if v is None or v == "":
        return None
    import datetime as dt
    import re

    s = v.strip().lower()
    m = re.fullmatch(r"([0-9]+)([dw])", s)
    if m or s in ("today", "yesterday"):
        days = (int(m[1]) * (7 if m[2] == "w" else 1)) if m else (s == "yesterday")
        try:
            return (dt.date.today() - dt.timedelta(days=days)).isoformat()
        except OverflowError:
            raise BadInput(f"{name}: {v!r} reaches before the year 1") from None
    day = re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", s)
    try:
        ym = None if day else month_or_year(s)
        if day:
            dt.date.fromisoformat(s)
    except ValueError:
        raise BadInput(f"{name}: not a real date: {v}") from None
    if day:
        return s
    if ym is None:
        raise BadInput(f"{name} must be a date: YYYY-MM-DD, YYYY-MM or YYYY (or a span like 7d), got {v!r}")
    return s + ("-99" if end else "-00") * (2 if ym[1] is None else 1)


@op(
    "timeline-add",
    "Append `- **DATE** | source — summary` to a page's timeline (creating the --- section if needed).",
    [
        SLUG,
        Param("date", required=True, description="YYYY-MM-DD"),
        Param("summary", required=True, description="one-line summary"),
        Param("source", description="meeting, email, call, manual, …", default=""),
        Param("detail", description="longer detail, indented under the entry", default=""),
    ],
    text=_saved,
    mutating=True,
    title="Add a timeline entry",
    idempotent=True,  # the same date, source and summary again adds nothing
    output=SAVED,
)
def _timeline_add(b, a, ctx):
    said = _entry_words(a, ctx)
    out = _follow(b, a, lambda x: b.timeline_add(x["slug"], x["date"], x["summary"], x.get("source") or "", x.get("detail") or "").as_dict())
    if said and isinstance(out, dict):  # a save's result has its own warnings (MCP keeps those over the ones said)
        out["warnings"] = [*out.get("warnings", []), *said]
    return out


#: the longest source a timeline line reads back as its source (``markdown.parse_timeline_entries``)
SOURCE_CHARS = 60


def _entry_words(a: dict, ctx) -> list[str]:
    """The warnings of a timeline entry's ``summary`` and ``source`` as timeline-add writes them
    (trial 26: both taken silently), or BadInput, nothing written. A summary of several lines
    is written as one line (white space folded: no word lost), said; one whose later line is
    another entry's (two events in one call) is refused, folding would make them one entry. A
    source of several words is written as given (hand-written brains hold ``office hours``),
    said, as the skills ask one short word; one the line would read back as part of the
    summary (over :data:`SOURCE_CHARS` characters, or a ``[``: a retry then added it again) is
    refused."""
    from ..page.markdown import is_timeline_line

    out = []
    lines = [ln.strip() for ln in (a.get("summary") or "").splitlines() if ln.strip()]
    if len(lines) > 1:
        other = next((ln for ln in lines[1:] if is_timeline_line(ln)), None)
        if other:
            raise BadInput(f"{ctx.flag('summary')} holds another entry's line ({other[:80]!r}): folded into one line the two events "
                           f"would be one entry; add each entry by a call of its own (or put {ctx.flag('timeline_append')} with one "
                           "line per entry); nothing was written")
        out.append(f"{ctx.flag('summary')} had {len(lines)} lines: written as one line (an entry's summary is one line); longer text "
                   f"goes in {ctx.flag('detail')}, indented under the entry")
    source = " ".join((a.get("source") or "").replace("—", "-").split())
    if len(source) > SOURCE_CHARS or "[" in source:
        why = f"over {SOURCE_CHARS} characters" if len(source) > SOURCE_CHARS else "it holds a ["
        raise BadInput(f"{ctx.flag('source')} {source[:80]!r} cannot be an entry's source ({why}: the line would read it as part of the "
                       f"summary); give one short word (meeting, email, call, …) and the rest in {ctx.flag('summary')}; nothing was written")
    if len(source.split()) > 1:
        out.append(f"{ctx.flag('source')} '{source}' is {len(source.split())} words, written as given; the skills use one short word "
                   f"(meeting, email, call, …) so that entries share their sources; the rest belongs in {ctx.flag('summary')}")
    return out


def _raw_saved(r: dict, a: dict) -> str:
    """The line a raw write says without ``--json`` (``updated people/ana: raw data crm in
    people/.raw/ana.json``), as :func:`_saved` says a page's write; a read (no ``data``) prints
    the JSON it read, the content asked for."""
    if a.get("data") is None:  # the hit marks a text renderer's output may hold (HIT_STYLE) as JSON escapes: the CLI styles or drops them
        return json.dumps(r, ensure_ascii=False, indent=2, default=str).replace(HIT_STYLE[0], "\\ue000").replace(HIT_STYLE[1], "\\ue001")
    return (f"{'updated' if r.get('changed') else 'unchanged'} {r['slug']}: raw data {r['source']} in {r['path']}"
            + (f"; {r['note']}" if r.get("note") else ""))


@op(
    "raw",
    "Read a page's raw enrichment JSON (.raw sidecar) as {source: data}: every source, or one (`source`). Over `max_chars` it comes in "
    "parts as brain_get's: {content (part of the JSON text), next_offset, total_chars, sources (each one's length)}; join their content.",
    [
        SLUG,
        Param("source", description="source name, e.g. crustdata"),
        Param("offset", "integer", "start at this character of the JSON text (next_offset of the previous part)", default=0, minimum=0, cli=False),
        Param("max_chars", "integer", "at most this many characters, cut at a line end (0: all of it, as one JSON object)", minimum=0, cli=False),
        Param("data", "object", "JSON to store under --source (write mode)", in_schema=False),
    ],
    title="Read raw data",
    output={"type": "object", "description": "source name → the JSON stored for it; or, for raw data longer than max_chars, a part of its JSON text "
            "(content, truncated, offset, next_offset, total_chars, sources)"},
    tool_defaults={"max_chars": PART_CHARS},
    text=_raw_saved,
)
def _raw(b, a, ctx):
    if a.get("data") is not None:
        return _raw_put(b, a, ctx)
    a = {**a, "slug": read_slug(b, a["slug"], ctx)[0]}
    out = b.raw_get(a["slug"], a.get("source"), on_warning=ctx.on_warning)
    offset, cap = a.get("offset") or 0, a.get("max_chars") or 0
    if offset == 0 and not cap:
        return out
    text = json.dumps(out, ensure_ascii=False, indent=1)
    if offset > len(text):
        raise BadInput(f"offset {offset:,} is past the end of the raw data of {a['slug']} ({len(text):,} characters)")
    if offset == 0 and len(text) <= cap:
        return out
    part = _part(text, offset, cap)
    del part["sections"]
    part.pop("sections_total", None)
    slug = b.resolve_slug(a["slug"])["slug"]
    return {"slug": slug, **part, "sources": {k: len(json.dumps(v, ensure_ascii=False, indent=1)) for k, v in out.items()}}


@op(
    "raw-put",
    "Store raw enrichment JSON for a page under a source name (.raw/<name>.json sidecar); replaces what that source had.",
    [SLUG, Param("source", required=True, description="source name, e.g. crustdata"), Param("data", "object", "the JSON to store", required=True)],
    mcp=True,
    mutating=True,
    title="Store raw data",
    destructive=True,
    idempotent=True,
    output=obj("slug", "changed", slug="string", source="string", path="string", changed="boolean", note="string"),
    text=_raw_saved,
)
def _raw_put(b, a, ctx):
    if not a.get("source"):
        raise BadInput(f"writing raw data needs {ctx.flag('source')}")
    return _follow(b, a, lambda x: b.raw_put(x["slug"], x["source"], x["data"], on_warning=ctx.on_warning))


class ConfigView(dict):
    """``config get``'s answer with no key: the stored values (what ``--json`` prints, for
    scripts), and ``in_effect``, :func:`config_not_in_effect`'s map, for the listing a person reads."""

    in_effect: dict[str, tuple[str, str, bool]] = {}


class ConfigValue(str):
    """``config get KEY``'s answer: the stored value, and ``note``, said on stderr, when it is a
    default nobody chose that is not in effect (what is, and why)."""

    note: str | None = None


def config_not_in_effect(b) -> dict[str, tuple[str, str, bool]]:
    """The stored config values that are not the ones in effect: ``{key: (value in effect, why, chosen)}``.

    ``embedding_model``: the model ``embed`` and ``query`` use (:func:`~gbrain.search.vectors.active_model`)
    is another (no ``OPENAI_API_KEY``: an offline one; a brain embedded offline). ``embedding_dimensions``:
    the vectors of the model in use have another size than the one stored (a model with a size of
    its own, minilm's 384; 1536 means "the model's own size" to text-embedding-3-large, 3072);
    ``dims`` not known before a server answers (a model of an OpenAI-compatible server) is "the
    model's own size". ``query_keyword_weight``: it was set while another model was in use
    (``hybrid.weight_applies``), the one in use takes its own. ``chosen``: a person set the value (``config set``; ``embedding_model``:
    config ``embedding_model_chosen`` or a value other than the default); False for a default
    ``init`` wrote (the model, or the size 1536 where the model in use takes no size, i.e. is not
    OpenAI's text-embedding-3, or was not chosen either): such a value is said as what is in effect, not as a setting overruled. Empty
    when every stored value is in effect. Reads the brain's counts of vectors per model (one query)."""
    from ..search import embeddings as emb
    from ..search.vectors import active_model
    from ..storage.db import DEFAULT_CONFIG

    config = b.config()
    model, note = active_model(b.conn, config)
    stored = (config.get("embedding_model") or emb.DEFAULT_MODEL).strip()
    used = model.model_id.split("@", 1)[0]
    model_chosen = bool(config.get(emb.CHOSEN_KEY)) or stored != emb.DEFAULT_MODEL
    out: dict[str, tuple[str, str, bool]] = {}
    if used != stored:
        if model_chosen:
            # resolve_model keeps quiet for the default on a brain embedded offline (embed and query
            # would say it every run), but here the question is which model is in use
            out["embedding_model"] = (used, note or f"no OPENAI_API_KEY, and this brain's vectors are {used}", True)
        elif emb.needs_key(stored, config):
            out["embedding_model"] = (used, f"no OPENAI_API_KEY for the default {stored}", False)
        else:
            out["embedding_model"] = (used, f"this brain's vectors are {used}; the default {stored} would need `gbrain embed`", False)
    d = str(config.get("embedding_dimensions") or "").strip()
    if d and str(model.dims or "") != d:
        size = str(model.dims) if model.dims else "its own size"
        # 1536 is "the model's own size" to every model but text-embedding-3-* (embeddings._openai): a
        # default nobody set unless the model in use takes a size and was chosen
        if d == DEFAULT_CONFIG["embedding_dimensions"] and (not model_chosen or not used.startswith("text-embedding-3")):
            out["embedding_dimensions"] = (size, f"{used}'s own size", False)
        else:
            why = (f"{used}'s vectors have {model.dims} dimensions" if model.dims else f"{used}'s vectors have the model's own size")
            if not emb.is_openai_name(used):
                why += " (only OpenAI's text-embedding-3 models take a size)"
            out["embedding_dimensions"] = (size, why, True)
    budget = emb.chunk_tokens_config(config)
    window = emb.model_window(used) if budget else None
    if budget and window and budget > window:  # (embeddings.chunk_tokens_for)
        out["embedding_chunk_tokens"] = (str(window), f"{used} reads about {window} tokens: its pages keep {used}'s own chunks", True)
    elif not budget:
        # unset: the budget the server's cached window gives (embeddings.server_budget), else the model's
        # own (minilm's window, gbrain's chunk size): a value nobody set
        src = _budget_source(config, model)
        out["embedding_chunk_tokens"] = (str(src[0]), src[1], False)
    from ..search.hybrid import DEFAULT_WEIGHT, weight_applies

    if (config.get("query_keyword_weight") or "").strip() and not weight_applies(config, model):
        own = getattr(model, "fts_weight", None) or DEFAULT_WEIGHT
        was = config.get("query_keyword_weight_model") or ""
        # the same model at another size (model_id name@size): another vector space, whose scores a
        # weight tuned at the other size does not fit
        size = (" (another embedding_dimensions: another vector space)"
                if was.split("@", 1)[0] == model.model_id.split("@", 1)[0] else "")
        out["query_keyword_weight"] = (str(own), f"it was set for {was}; {model.model_id} is in use{size} "
                                                 f"and takes its own weight, {own}", True)
    return out


def _budget_source(config: dict, model) -> tuple[int, str, str]:
    """``(budget, short, long)``: the chunk budget ``model`` (the one in effect,
    :func:`~gbrain.search.vectors.active_model`) is cut at when the brain set none, and where it
    comes from: a server's cached window (``embeddings.server_budget_source``), else the model's
    own (``embeddings.own_budget_source``). Reads the config alone (no network)."""
    from ..search import embeddings as emb

    return emb.server_budget_source(config, model.model_id.split("@", 1)[0]) or emb.own_budget_source(config, model)


def _not_in_effect_said(key: str, stored: str, value: str, why: str) -> str:
    """The warning ``config get`` gives for a stored value that is not in effect."""
    if key == "embedding_model":
        return f"{key} {stored} is stored but not in effect: {value} is in use ({why})"
    return f"{key} {stored} is stored but not in effect: {why}"


def _config_text(r, a: dict) -> str:
    if isinstance(r, str):
        return r
    eff = getattr(r, "in_effect", {})
    out = []
    # a value in effect that nobody stored (the chunk budget a server's window gives) is listed too
    for k, v in [*r.items(), *((k, "") for k in eff if k not in r)]:
        if k in eff:
            value, why, chosen = eff[k]
            v = f"{value} (in effect; stored {v}: not in effect)" if chosen else f"{value} (in effect: {why})"
        lines = v.splitlines()
        if len(lines) > 1:  # (the root index.md an import kept): one line per key
            v = f"{lines[0][:60]} … ({len(lines)} lines: `gbrain config get {k}` prints it)"
        elif len(v) >= 80:
            v = v[:77] + "..."
        out.append(f"{k} = {v}")
    return "\n".join(out)


@op("config-get", "Read a config value (no key: all of them).", [Param("key", positional=True, description="config key")], mcp=False, title="Read config values", text=_config_text,
    note=lambda r, a: getattr(r, "note", None),
    details="A stored value not in effect (no OPENAI_API_KEY: the offline model is used, and embedding_dimensions does not apply to it) "
    "is said on stderr, with the value in effect (a warning for a value set; a note for a default nobody set); KEY's stored value stays "
    "on stdout. With no KEY the list shows the values in effect and why, marking the stored ones set that are not (--json: the stored values). "
    "An unset embedding_chunk_tokens shows the budget in effect (a server's cached window, the model's own), and from where.")
def _config_get(b, a, ctx):
    key = a.get("key")
    eff: dict[str, tuple[str, str]] = {}
    if key in (None, "", "embedding_model", "embedding_dimensions", "embedding_chunk_tokens", "query_keyword_weight"):
        try:
            eff = config_not_in_effect(b)
        except GBrainError as e:  # a setting no model can be made from: config get still shows what is stored
            if ctx.on_warning:
                ctx.on_warning(f"which embedding settings are in effect cannot be told: {e}")
    set_eff = {k: v for k, v in eff.items() if v[2]}  # a default nobody set is no setting overruled: no warning
    if ctx.on_warning and set_eff and not key:
        # the listing marks each value; one line says why (both keys have one cause when no key is set)
        whys = list(dict.fromkeys(f"{v} is in use ({why})" if k == "embedding_model" else why for k, (v, why, _) in set_eff.items()))
        ctx.on_warning(f"{len(set_eff)} stored setting(s) not in effect, marked in the list: " + "; ".join(whys))
    elif ctx.on_warning and key in set_eff:
        value, why, _ = set_eff[key]
        ctx.on_warning(_not_in_effect_said(key, b.config().get(key, ""), value, why))
    if not key:
        out = ConfigView(b.config())
        out.in_effect = eff
        return out
    v = b.get_config(key)
    if v is None and key == "embedding_chunk_tokens" and key in eff:
        # nobody set it: the budget the server's cached window gives is in effect (said, from the cache)
        from ..search.vectors import active_model

        cfg = b.config()
        src = _budget_source(cfg, active_model(b.conn, cfg)[0])
        if src:
            v = ConfigValue(str(src[0]))
            v.note = (f"note: {key} is not set: {src[0]} is in effect, {src[2]}; "
                      f"`gbrain config set {key} N` sets another budget")
            return v
    if v is None:
        from ..core.brain import READONLY_CONFIG, READONLY_SET_BY, SETTABLE_CONFIG, unknown_config_key
        from ..errors import NotFound

        if key not in SETTABLE_CONFIG and key not in READONLY_CONFIG:
            raise unknown_config_key(key)  # (as config-set says it: exit 2)
        if key in READONLY_CONFIG:  # no default: gbrain sets it (exit 1, as any key not set)
            raise NotFound(f"config '{key}' is not set: gbrain sets it {READONLY_SET_BY[key]}")
        raise NotFound(f"config '{key}' is not set (its default applies)")
    if key in eff and not eff[key][2]:
        v = ConfigValue(v)
        v.note = f"note: {key} {v} is the default (never set): {eff[key][0]} is in effect ({eff[key][1]})"
    elif key == "query_keyword_weight" and key not in eff and b.get_config("query_keyword_weight_model") and str(v).strip():
        v = ConfigValue(v)
        v.note = (f"note: {key} {v} is {b.get_config('query_keyword_weight_model')}'s (the model in use when it was set); "
                  "another model takes its own weight")
    return v


def config_keys_said() -> str:
    """The keys ``config set`` takes and what each takes, one sentence for help texts (``config
    --help``, ``config set --help``): made from :data:`gbrain.core.brain.SETTABLE_CONFIG`, where
    the keys are defined, so a new key is listed without a second copy."""
    from ..core.brain import SETTABLE_CONFIG

    return "Keys: " + "; ".join(f"{k}: {said}" for k, (_ok, said) in SETTABLE_CONFIG.items()) + "."


@op("config-set", "Set a config value (e.g. timeline_split rule|heading, embedding_model).", [Param("key", required=True, positional=True), Param("value", required=True, positional=True)], mcp=False, title="Set a config value", text=lambda r, a: f"{r['key']} = {r['value']}", mutating=True,
    details=config_keys_said())
def _config_set(b, a, ctx):
    entries = _entries_per_page(b) if a["key"] == "timeline_split" and ctx.on_warning else None
    b.set_config(a["key"], a["value"])
    if entries is not None:
        w = _entries_unread_note(b, entries, a["value"])
        if w:
            ctx.on_warning(w)
    if a["key"] == "embedding_model" and ctx.on_warning:
        w = _unknown_model_warning(a["value"], b.config())
        if w:
            ctx.on_warning(w)
    if a["key"] in ("embedding_model", "embedding_dimensions") and ctx.on_warning:
        from ..search import embeddings as emb

        w = emb.dims_unused_note((b.get_config("embedding_model") or emb.DEFAULT_MODEL).strip(), b.get_config("embedding_dimensions"))
        if w:
            ctx.on_warning(w)
    if a["key"] in ("embedding_model", "embedding_chunk_tokens") and ctx.on_warning and b.get_config("embedding_chunk_tokens"):
        from ..search import embeddings as emb
        from ..search.vectors import active_model

        try:
            w = emb.chunk_budget_unused_note(active_model(b.conn, b.config())[0].model_id, b.config())
        except GBrainError:
            w = None
        if w:
            ctx.on_warning(w)
    return {"key": a["key"], "value": a["value"]}


def _entries_per_page(b) -> dict[int, int]:
    """``{page id: its timeline entries}``: what ``config set timeline_split`` compares before and after."""
    return {pid: n for pid, n in b.conn.execute("SELECT page_id, COUNT(*) FROM timeline_entries GROUP BY page_id")}


def _entries_unread_note(b, before: dict[int, int], value: str) -> str | None:
    """The warning of a ``timeline_split`` change that left pages fewer timeline entries than
    ``before`` (:func:`_entries_per_page`): their dated lines stay in the text, but ``timeline``
    no longer lists them (an entry written under ``rule`` below a plain ``---`` has no ``## Timeline``
    heading above it under ``heading``; trial s59). None when no page lost one."""
    after = _entries_per_page(b)
    lost = {pid: n - after.get(pid, 0) for pid, n in before.items() if after.get(pid, 0) < n}
    if not lost:
        return None
    ids = sorted(lost, key=lambda pid: (-lost[pid], pid))
    names = [r[0] for pid in ids[:5] for r in b.conn.execute("SELECT slug FROM pages WHERE id = ?", (pid,))]
    k = sum(lost.values())
    more = f", … {len(ids) - 5} more" if len(ids) > 5 else ""
    how = ("a `---` right above a `## Timeline` or `## History` heading is the separator now"
           if value == "heading" else "the first `---` is the separator now")
    return (f"{k:,} timeline entr{'y' if k == 1 else 'ies'} in {len(ids):,} page(s) no longer read as timeline entries ({how}): "
            f"{', '.join(names)}{more}; their lines stay in the text; `gbrain config set timeline_split "
            f"{'rule' if value == 'heading' else 'heading'}` reads them again")


@op("config-unset", "Remove a config value so its default applies again (e.g. embedding_base_url).", [Param("key", required=True, positional=True)], mcp=False, title="Unset a config value",
    text=lambda r, a: f"{r['key']} unset" if r["was_set"] else f"{r['key']} was not set", mutating=True)
def _config_unset(b, a, ctx):
    return {"key": a["key"], "was_set": b.unset_config(a["key"])}


def _unknown_model_warning(name: str, config: dict) -> str | None:
    """A warning for an embedding model name that only an OpenAI-compatible server could serve
    when no such server is configured (a typo such as ``minlm``), else None."""
    import difflib

    from ..search import embeddings as emb

    name = name.strip()
    if (not emb.is_openai_name(name) or name in emb.OPENAI_MODELS or config.get("embedding_base_url")
            or os.environ.get(emb.URL_ENV) or os.environ.get("OPENAI_BASE_URL")):
        return None
    known = [emb.MINILM_MODEL, emb.OFFLINE_MODEL, *emb.OPENAI_MODELS]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    return (f"'{name}' is not a model gbrain knows; it would be asked of an OpenAI-compatible server, and none is set yet. "
            f"{hint}If it runs on your own server: `gbrain config set embedding_base_url URL` (or {emb.URL_ENV}). "
            f"Offline models: {emb.MINILM_MODEL}, {emb.OFFLINE_MODEL}")


def _import_text(r: dict, a: dict) -> str:
    """import's report, then a ``CONFLICT`` line per file-sync tool's copy the tree holds (as sync's)."""
    found = r.get("conflicts") or []
    lines = [f"CONFLICT: {c['copy_path']}: {c['note']}: {c['action']}" for c in found]
    if r.get("conflict_count", 0) > len(found):
        lines.append(f"… and {r['conflict_count'] - len(found):,} more conflict copies (`gbrain conflicts` lists every one)")
    return "\n".join([_report_text(r, a), *lines])


@op(
    "import",
    "Import a markdown tree into the brain (lossless, incremental by content hash) and print a validation report.",
    [Param("dir", required=True, positional=True, description="the markdown folder to import", directory=True),
     Param("include_purged", "boolean", "also import files whose bytes are exactly a version `gbrain purge` removed (left out and named by default: "
           "importing them brings the purged text back)", default=False)],
    mcp=False, title="Import a markdown folder",
    db="create",
    text=lambda r, a: _import_text(r, a),
    mutating=True,
)
def _import(b, a, ctx):
    from ..sync.importer import import_tree

    root = _dir_arg(a["dir"])
    if ctx.progress_label:
        ctx.progress_label("Importing")
    return import_tree(b, root, on_progress=ctx.on_progress, on_warning=ctx.on_warning, include_purged=bool(a.get("include_purged")))


@op(
    "export",
    "Export the brain to a markdown tree, byte for byte (only changed files are written), then verify it.",
    [
        Param("dir", required=True, argument_too=True, path=True, description="output folder (created if missing, and named in the report)"),
        Param("overwrite", "boolean", "replace files in the folder that differ from the brain (their bytes are kept in the history first)", default=False),
        Param("prune", "boolean", "remove files in the folder the brain no longer holds whose bytes are a version of the page or file at their "
              "path (an earlier export's, of pages deleted or renamed since); never any other file; lists what it removed", default=False),
    ],
    mcp=False, title="Export the brain to a markdown folder",
    text=_compare_text,
)
def _export(b, a, ctx):
    from ..sync.exporter import export_tree

    if ctx.progress_label:
        ctx.progress_label("Exporting")
    return export_tree(b, Path(a["dir"]).expanduser(), on_progress=ctx.on_progress, overwrite=bool(a.get("overwrite")),
                       prune=bool(a.get("prune")))


@op(
    "verify",
    "Check that the brain still matches a markdown folder, writing nothing: it lists the files added, changed or missing "
    "since the brain stored them, checks that the database file is sound (a passing check is trusted for "
    "verify_trust_check_hours, 24 by default, while the file is unchanged; --check-db checks now), and re-reads a sample "
    "of pages to confirm that their links, tags and timeline still match their text. --deep does that for every page "
    "and checks the whole database file (it takes about as long as an import).",
    [
        Param("dir", required=True, positional=True, description="the markdown folder", directory=True),
        Param("deep", "boolean", "also check the database file, re-render every page and re-parse every page (the cost of an import)", default=False),
        Param("check_db", "boolean", "check the database file now (SQLite's quick_check), even when a passing check less than "
              "verify_trust_check_hours (config; empty: 24) ago is trusted", default=False),
    ],
    # (the figures of sync/verify.py SAMPLE_SHARE, SAMPLE_MIN_CHARS: tests/test_import_export.py holds them equal)
    details="The sample is 0.15% of the page text, at least 16,384 characters.",
    mcp=False, title="Compare a markdown folder with the brain",
    text=_compare_text,
)
def _verify(b, a, ctx):
    from ..sync.scan import db_excludes, scan_tree
    from ..sync.verify import verify_tree

    root = _dir_arg(a["dir"])
    if ctx.progress_label:
        ctx.progress_label("Verifying")
    # no lstat per file: verify reads every file whole, and the reads give the sizes; no
    # sorting of each folder's entries: the tree is compared with the brain as a set
    return verify_tree(b, scan_tree(root, exclude_abs=db_excludes(b.path), sizes=False, ordered=False), on_progress=ctx.on_progress, deep=bool(a.get("deep")),
                       check_db=bool(a.get("check_db")))


def _check_text(r: dict, a: dict) -> str:
    if r["ok"]:
        return f"{r['database']}: OK ({', '.join(r['checked'])})"
    return "\n".join([f"{r['database']}: DAMAGED"] + [f"  {p}" for p in r["problems"]] + [r["advice"]])


@op("check", "Check the brain database file itself: SQLite's integrity_check, the search index against the pages, foreign keys, every page's text and every stored file's bytes against their stored hashes (on Postgres, which keeps its files, indexes and keys itself: the hashes). Exit 1 with how to recover when it is damaged.", [], mcp=False, title="Check the database file's integrity", text=_check_text)
def _check(b, a, ctx):
    from ..storage.db import recovery_advice
    from ..sync.verify import db_integrity

    problems = db_integrity(b, full=True)
    if getattr(b.conn, "dialect", "sqlite") == "postgres":  # the server keeps its files, indexes and keys sound itself
        checked = ["page and file hashes; Postgres keeps its own files, indexes and foreign keys"]
    else:
        checked = ["integrity_check", "search index", "foreign keys", "page hashes", "file hashes"]
    advice = recovery_advice(b.path) if problems else ""
    if problems and all(p.startswith("search index:") or " nav file(s) whose stored entries differ" in p for p in problems):
        # only derived rows (the keyword index, nav files' entries): the pages are sound, writes
        # go on, and they are rebuilt from the stored texts in one command (no export or re-import)
        advice = (f"only the search index or nav entries are damaged (the pages and their texts are sound; writes still work): "
                  f"rebuild them with `gbrain reindex --db {cmd_arg(b.path)}`")
    from ..search.vectors import mixed_dims

    mixed = mixed_dims(b.conn)  # not damage, but `query` cannot use such a model's vectors
    for m, by in mixed.items():
        sizes = ", ".join(f"{n:,} of {d} dims" for d, n in sorted(by.items()))
        if ctx.on_warning:
            ctx.on_warning(f"the vectors of {m} have {len(by)} sizes ({sizes}): `gbrain query` cannot search them; "
                           f"re-embed with `gbrain embed --force` (active model) or drop them with `gbrain embed-drop {m}`")
    checked = checked + ["vector sizes"]
    return {"ok": not problems, "database": str(b.path), "checked": checked, "problems": problems, "advice": advice,
            "mixed_vector_sizes": {m: {str(d): n for d, n in by.items()} for m, by in mixed.items()}}


@op("reindex", "Rebuild the keyword search index from the pages: the repair when brain_search warns of index rows whose page does not exist. "
    "Changes no page; on Postgres nothing to do.",
    [], details="It is what `gbrain check` advises when only that index is damaged. Running it again changes nothing more.", mutating=True, idempotent=True, title="Rebuild the search index", text=lambda r, a: r["message"],
    output={"type": "object", "properties": {"rebuilt": {"type": "boolean", "description": "false on Postgres: nothing to rebuild"},
                                             "message": {"type": "string"}}, "required": ["rebuilt", "message"]})
def _reindex(b, a, ctx):
    """``{rebuilt, message}``: SQLite rebuilds FTS5's ``page_fts`` from ``pages`` in one write
    transaction ('rebuild'); Postgres has no index to rebuild. Both write every nav file's
    ``nav_entries`` again from its stored bytes (``db.fill_nav_entries``: what ``check`` reports
    as nav entries unlike their bytes)."""
    from ..storage.db import fill_nav_entries

    if getattr(b.conn, "dialect", "sqlite") == "postgres":
        with b.transaction():
            fill_nav_entries(b.conn)
        return {"rebuilt": False, "message": "Postgres keeps its search index itself; nothing to rebuild (nav entries written again)"}
    with b.transaction():  # a call cancelled before the commit leaves the old index, whole
        fill_nav_entries(b.conn)
        b.conn.execute("INSERT INTO page_fts(page_fts) VALUES ('rebuild')")
        b.conn.execute("INSERT INTO canvas_fts(canvas_fts) VALUES ('rebuild')")  # canvases' cards (docs/storage.md "Canvases")
    n = b.conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    return {"rebuilt": True, "message": f"rebuilt the search index of {n:,} page(s)"}


def _copy_text(r: dict, a: dict) -> str:
    rows = sum(r["tables"].values())
    return (f"copied {r['pages']:,} page(s), {r['files']:,} file(s), {r['history']:,} version(s) ({rows:,} rows) "
            f"from {r['from']} to {r['to']}; {'the same brain' if r['equal'] else 'DIFFERENCES: ' + ', '.join(r['differences'])}"
            + (f"; kept the sync base of {r['folder']} (the one folder it syncs with; --folder picks another)" if r.get("folder") else ""))


@op(
    "copy",
    "Copy a whole brain to another database of either engine (SQLite file ↔ postgresql://…): pages, files, "
    "history, embeddings and sync state, ids kept; the target must be new or empty.",
    [
        Param("from", required=True, path=True, description="the brain to copy: a SQLite file or a postgresql:// URL"),
        Param("to", required=True, path=True, description="where to copy it: a new SQLite file or an empty postgresql:// database"),
        Param("folder", path=True, description="a Postgres brain to SQLite: the synced folder whose sync base the copy keeps "
              "(`gbrain sync-clients` lists them; default: this machine's first)"),
    ],
    mcp=False, title="Copy a brain to another database",
    db="none",
    mutating=True,
    text=_copy_text,
)
def _copy(_b, a, ctx):
    from ..storage.copy import sqlite_client
    from ..storage.db import resolve_db_path

    src_p, dst_p = resolve_db_path(a["from"]), resolve_db_path(a["to"])
    if str(src_p) == str(dst_p) and getattr(src_p, "url", None) == getattr(dst_p, "url", None):
        raise BadInput("--from and --to name the same brain")
    with Brain.open(src_p, create=False) as src:
        keep = None
        if getattr(src.conn, "dialect", "sqlite") == "postgres" and getattr(dst_p, "url", None) is None:
            keep = sqlite_client(src.conn, a.get("folder"))  # before the target exists: a wrong folder writes nothing
        elif a.get("folder"):
            raise BadInput("--folder is for a copy of a Postgres brain to SQLite (the one folder a SQLite brain syncs with)")
        with Brain.open(dst_p, create=True) as dst:
            return _copy_into(src, dst, src_p, dst_p, keep, ctx)


def _copy_into(src, dst, src_p, dst_p, keep, ctx) -> dict:
    """The copy of the open brain ``src`` into ``dst`` and its check (:func:`_copy`); ``keep`` is
    the Postgres sync client a SQLite target keeps (None: every client, engines alike)."""
    from ..storage.copy import copy_tables, is_empty, read_snapshot
    from ..sync.verify import derived_snapshot, engine_snapshot, fts_state

    if not is_empty(dst.conn):
        raise BadInput(f"{dst_p} already holds a brain; copy needs a new or empty target (nothing was written)")
    if ctx.progress_label:
        ctx.progress_label("Copying")
    with read_snapshot(src.conn):  # the copy and its check read the source at one moment
        counts = copy_tables(src.conn, dst.conn, on_progress=ctx.on_progress, keep=keep)
        a_snap = derived_snapshot(src, fts=False)
        same = getattr(src.conn, "dialect", "sqlite") == getattr(dst.conn, "dialect", "sqlite")
        if same:  # what one engine alone derives (Postgres: its search vectors, BM25 totals)
            a_snap |= engine_snapshot(src)
    a_snap["fts"] = fts_state(src.conn)  # (a write statement on SQLite: after the snapshot)
    b_snap = derived_snapshot(dst) | (engine_snapshot(dst) if same else {})
    diff = sorted(k for k in a_snap if a_snap[k] != b_snap.get(k))
    kept = dst.conn.execute("SELECT root FROM sync_root").fetchone() if keep else None
    return {"from": str(src_p), "to": str(dst_p), "tables": counts, "pages": counts["pages"], "files": counts["files"],
            "history": counts["history"], "equal": not diff, "differences": diff, "folder": kept[0] if kept else None}
