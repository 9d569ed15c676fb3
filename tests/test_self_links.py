"""A page that links to itself by its own alias, title or slug: the link resolves to the page
after every write path (put, sync, import, bulk import), as a fresh import of the tree gives.

Trial report (obsidian-hub, 2026-12-02): ``aliases: [Overdue]`` + ``[[Overdue]]`` in the same
page resolved at import and went dangling at the first ``put``: ``write_rows`` deleted the
page's alias rows, resolved its links, and only then wrote the aliases again.
"""
from __future__ import annotations

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.sync.verify import fresh_import_differences

# (file name, text, the link target as written): each page links to itself
SELF = [
    ("obsidian-overdue", "---\naliases:\n- Overdue\n---\nMarks items as [[Overdue]] when late.\n", "Overdue"),
    ("title-page", "---\ntitle: Due Soon\n---\nSee [[Due Soon]] when late.\n", "Due Soon"),
    ("h1-page", "# Late Items\n\nSee [[Late Items]] when late.\n", "Late Items"),
    ("slug-page", "See [[slug-page]] and [me](slug-page.md) when late.\n", "slug-page"),
]


def _self_resolved(b: Brain, slug: str) -> None:
    got = b.links(slug)
    assert got and all(x["to_slug"] == slug for x in got), got


@pytest.mark.parametrize("name, text, target", SELF, ids=[s[0] for s in SELF])
def test_a_link_to_the_page_itself_survives_put(db_path, name, text, target):
    with Brain.open(db_path) as b:
        b.put(name, text)
        _self_resolved(b, name)
        b.put(name, text.replace("when late", "when very late"))  # aliases and title unchanged
        _self_resolved(b, name)
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("name, text, target", SELF, ids=[s[0] for s in SELF])
def test_a_link_to_the_page_itself_survives_sync_and_import(tmp_path, db_path, name, text, target):
    v = tmp_path / "v"
    v.mkdir()
    f = v / f"{name}.md"
    f.write_text(text, encoding="utf-8")
    ctx = ops.Context(db=str(db_path))
    assert ops.run("import", {"dir": str(v)}, ctx)  # the bulk path (save_new_pages)
    with Brain.open(db_path) as b:
        _self_resolved(b, name)
    f.write_text(text.replace("when late", "when very late"), encoding="utf-8")
    assert ops.run("sync", {"dir": str(v)}, ctx)["ok"]
    with Brain.open(db_path) as b:
        _self_resolved(b, name)
        assert fresh_import_differences(b) == {}
    f.write_text(text.replace("when late", "when quite late"), encoding="utf-8")
    ops.run("import", {"dir": str(v)}, ctx)
    with Brain.open(db_path) as b:
        _self_resolved(b, name)
        assert fresh_import_differences(b) == {}


def test_two_pages_linking_each_others_aliases_stay_resolved_in_a_bulk_write(db_path):
    """``write_rows_many`` with a resolver: every page's aliases are written before any link of
    the batch is resolved (page A links B's alias, B comes after A)."""
    from gbrain.page.markdown import parse_page
    from gbrain.storage.derive import write_rows_many

    with Brain.open(db_path) as b:
        b.put("a", "---\naliases: [Ay]\n---\nx\n")
        b.put("b", "---\naliases: [Bee]\n---\ny\n")
        pages = [(b.resolve_slug(s)["id"], parse_page(t, s + ".md")) for s, t in
                 [("a", "---\naliases: [Ay]\n---\nTo [[Bee]].\n"), ("b", "---\naliases: [Bee]\n---\nTo [[Ay]].\n")]]
        with b.transaction():
            for pid, _p in pages:
                b.conn.execute("DELETE FROM aliases WHERE page_id = ?", (pid,))
            write_rows_many(b.conn, pages, lambda kind, target: b.resolve_link("a", kind, target))
        assert [x["to_slug"] for x in b.links("a")] == ["b"]
        assert [x["to_slug"] for x in b.links("b")] == ["a"]
