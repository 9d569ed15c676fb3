"""Slugs: the one mapping between file paths and page names.

A slug is the page's path relative to the brain root, with ``/`` separators and without the
``.md`` suffix, NFC-normalised (macOS writes NFD names; lookups must not care). The stored
``path`` keeps the exact on-disk spelling so export recreates the same bytes.
"""
from __future__ import annotations

import posixpath
import unicodedata

from ..errors import BadInput


#: folders a page slug may not point into: version control and the raw-sidecar folders
RESERVED_DIRS = {".git", ".hg", ".svn", ".raw"}
#: longest file-name segment (bytes) a slug may have: 255 (ext4, APFS) less ".md" and margin
MAX_NAME_BYTES = 240


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def is_markdown(path: str) -> bool:
    return path.lower().endswith(".md")


def slug_for_path(path: str) -> str:
    """``people/Ana Lima.md`` → ``people/Ana Lima`` (NFC)."""
    p = path.replace("\\", "/")
    if is_markdown(p):
        p = p[:-3]
    return nfc(p)


def slug_key(slug: str) -> str:
    """Case-insensitive lookup key of a slug."""
    return nfc(slug).casefold()


def name_key(slug: str) -> str:
    """Case-insensitive key of the slug's last segment (Obsidian resolves ``[[Name]]`` by it)."""
    return slug_key(posixpath.basename(slug))


def loose_key(name: str) -> str:
    """``Bruno Okafor`` / ``bruno_okafor`` / ``Bruno-Okafor.md`` → ``bruno-okafor``: the key wiki links
    and titles are matched by when no exact path or file name matches."""
    base = posixpath.basename(nfc(name).casefold())
    if base.endswith(".md"):
        base = base[:-3]
    out, dash = [], False
    for c in base:
        if c.isalnum():
            out.append(c)
            dash = False
        elif not dash:
            out.append("-")
            dash = True
    return "".join(out).strip("-")


def check_slug(slug: str) -> str:
    """Validate a user-given slug and return it normalised (NFC, no ``./``, no ``.md``).

    Raises :class:`BadInput` for an empty slug, NUL or control characters, an absolute path,
    a ``..`` or ``.`` segment, a backslash or an empty segment: all would write outside the
    brain or to an ambiguous file.
    """
    if not isinstance(slug, str) or not slug.strip():
        raise BadInput("slug is empty")
    s = slug.strip()
    if "\x00" in s or any(ord(c) < 32 for c in s):
        raise BadInput(f"slug {slug!r} contains a NUL or control character")
    if "\\" in s:
        raise BadInput(f"slug {slug!r} contains a backslash; use '/' between folders")
    if s.startswith("/") or (len(s) > 1 and s[1] == ":"):
        raise BadInput(f"slug {slug!r} is an absolute path; slugs are relative to the brain, e.g. people/ana-lima")
    while s.startswith("./"):
        s = s[2:]
    if is_markdown(s):
        s = s[:-3]
    parts = s.split("/")
    for part in parts:
        if part in ("", ".", ".."):
            raise BadInput(f"slug {slug!r} has an empty, '.' or '..' segment")
        if part in RESERVED_DIRS:
            raise BadInput(f"slug {slug!r} points into {part}/, which gbrain keeps out of the brain")
        if part.startswith(".gbrain-tmp-"):
            raise BadInput(f"slug {slug!r} uses gbrain's temporary-file prefix")
    return nfc(s)


def path_for_slug(slug: str) -> str:
    return slug + ".md"


def sidecar_path(slug: str) -> str:
    """``people/ana`` → ``people/.raw/ana.json``."""
    d, name = posixpath.split(slug)
    return posixpath.join(d, ".raw", name + ".json")


def page_slug_for_sidecar(path: str) -> str | None:
    """``people/.raw/ana.json`` → ``people/ana``; None when ``path`` is not a sidecar."""
    d, name = posixpath.split(path)
    if posixpath.basename(d) != ".raw" or not name.lower().endswith(".json"):
        return None
    return nfc(posixpath.join(posixpath.dirname(d), name[:-5]))
