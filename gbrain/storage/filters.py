"""The one spelling of the page filters every command shares (``list``, ``lint``, ``search``,
``query``): by type, by tag (nested tags included) and by folder, as SQL pieces over ``pages``
(aliased ``p``) that read the same on SQLite and Postgres.

Here, below ``core`` and ``search``, so the keyword and vector rankings apply the very
conditions ``list`` (``--tag``, ``--prefix``) and lint's folders use (tests/test_layers.py: imports point down)."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import BadInput
from ..page.slugs import slug_key, tag_identity


def tag_filter_key(tag: str) -> str:
    """The identity a tag filter compares (``#Area/`` → ``area``): ``#`` and a trailing ``/``
    dropped, then :func:`~gbrain.page.slugs.tag_identity` (NFC + lowercase, as Obsidian)."""
    return tag_identity(tag.strip().lstrip("#").strip().rstrip("/"))


def folder_key(folder: str) -> str:
    """The ``slug_key`` prefix of the pages under ``folder`` (``People/`` or ``people`` →
    ``people/``: case-insensitive, whole folder names, subfolders included). Raises
    :class:`BadInput` for a folder with no name (``""``, ``/``)."""
    name = (folder or "").strip().strip("/")
    if not name:
        raise BadInput("the folder is empty; give a folder such as people/")
    return slug_key(name) + "/"


def folder_sql(folder: str, alias: str = "p") -> tuple[str, list]:
    """A condition on ``alias`` (a ``pages`` row) selecting the pages under ``folder``
    (:func:`folder_key`), and its arguments: a range of ``slug_key`` (indexed; ``/`` + 1 is
    ``0``, so ``[people/, people0)`` holds exactly the keys starting with ``people/``, in the
    binary order both engines compare the column in)."""
    key = folder_key(folder)
    return f"{alias}.slug_key >= ? AND {alias}.slug_key < ?", [key, key[:-1] + "0"]


@dataclass(frozen=True)
class PageFilter:
    """Pages of a type, with a tag and/or under a folder, and/or updated since an ISO time (``since``,
    search's: as ``list`` compares ``updated_at``) (each None: no such condition)."""

    type: str | None = None
    tag: str | None = None
    prefix: str | None = None
    since: str | None = None

    def __bool__(self) -> bool:
        return bool(self.type or self.tag or self.prefix or self.since)

    @property
    def beyond_type(self) -> bool:
        """Whether a tag, folder or time condition is set (more than a type)."""
        return bool(self.tag or self.prefix or self.since)

    def where(self, alias: str = "p") -> tuple[list[str], list]:
        """The conditions on ``alias`` (a ``pages`` row) and their arguments. ``tag`` matches by
        identity (:func:`tag_filter_key`), frontmatter and inline tags alike, and a nested tag's
        parents: ``area`` selects pages tagged ``area`` or ``area/sub``; ``prefix`` is a folder
        (:func:`folder_sql`)."""
        where, args = [], []
        if self.tag:
            key = tag_filter_key(self.tag)
            where.append(f"EXISTS (SELECT 1 FROM tags t WHERE t.page_id = {alias}.id AND (t.tag_key = ? OR substr(t.tag_key, 1, ?) = ?))")
            args += [key, len(key) + 1, key + "/"]
        if self.prefix:
            sql, a = folder_sql(self.prefix, alias)
            where.append(sql)
            args += a
        if self.type:
            where.append(f"{alias}.type = ?")
            args.append(self.type)
        if self.since:
            where.append(f"{alias}.updated_at >= ?")
            args.append(self.since)
        return where, args

    def sql(self, alias: str = "p") -> tuple[str, list]:
        """:meth:`where` as one ``" AND …"`` string to append to a ``WHERE`` (``""`` for no
        filter), and its arguments."""
        where, args = self.where(alias)
        return "".join(" AND " + w for w in where), args


def page_filter(*, type: str | None = None, tag: str | None = None, prefix: str | None = None) -> tuple[str, list[str], list]:
    """SQL pieces selecting pages (aliased ``p``) by type, tag and/or folder: ``(join, where,
    args)`` (:meth:`PageFilter.where`; ``join`` is always ``""``)."""
    where, args = PageFilter(type, tag, prefix).where()
    return "", where, args
