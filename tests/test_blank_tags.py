"""A tag holds no blank (Obsidian Help, "Tags": "Tags can't contain blank spaces"; Obsidian reads no
tag from a tags item that has one, and 1.9.3+ marks such a value invalid in the property editor):
``tags: [Folder, Nested Folder, Explorer]`` (obsidian-hub) tags ``Folder`` and ``Explorer`` only.
Such an item stays in the property on every tag edit, and lint's ``tag_duplicates`` offers its
respelling (``Nested Folder`` → ``nested-folder``, ``YC Alum`` → the ``yc-alum`` other pages use)."""
from __future__ import annotations

import pytest

from conftest import write_tree
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.core.lint import lint
from gbrain.page.markdown import edit_frontmatter, parse_page
from gbrain.sync.importer import import_tree


@pytest.mark.engine_free
@pytest.mark.parametrize("fm, tags", [
    ("tags: [Folder, Nested Folder, Explorer]", ["Folder", "Explorer"]),
    ("tags:\n  - 'two words'\n  - ok\n  - '#also two'", ["ok"]),
    ("tags: two words", ["two", "words"]),  # a string is split at blanks (Obsidian does so too)
    ("tag: [a b]", []),
])
def test_a_tags_item_with_a_blank_is_no_tag(fm, tags):
    page = parse_page(f"---\n{fm}\n---\nx\n")
    assert page.tags == tags


@pytest.mark.engine_free
def test_a_tag_edit_keeps_an_item_with_a_blank():
    page = parse_page("---\ntags: [Nested Folder, a]\n---\nx\n")
    out = edit_frontmatter(page, tags=["a", "b"])
    assert out == "---\ntags: [Nested Folder, a, b]\n---\nx\n"


def test_lint_respells_a_blank_item_and_a_fresh_import_agrees(tmp_path, db_path):
    from gbrain.sync.verify import fresh_import_differences

    write_tree(tmp_path / "v", {"a.md": "---\ntags: [Nested Folder, files]\n---\nx\n", "b.md": "---\ntags: [YC Alum]\n---\ny\n",
                                "c.md": "---\ntags: [yc-alum]\n---\nz\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        assert b.tags("a") == ["files"] and b.tags("b") == []
        assert fresh_import_differences(b) == {}
        r = lint(b, checks=["tag_duplicates"], limit=None)
        got = {f["canonical"]: sorted(f["variants"]) for f in r["items"]}
        assert got == {"nested-folder": ["Nested Folder"], "yc-alum": ["YC Alum", "yc-alum"]}, got
        r = lint(b, checks=["tag_duplicates"], fix_safe=True, limit=None)
        assert sorted(f["slug"] for f in r["fixed"]) == ["a", "b"]
        assert b.get_text("a") == "---\ntags: [nested-folder, files]\n---\nx\n"
        assert b.get_text("b") == "---\ntags: [yc-alum]\n---\ny\n"
        assert lint(b, checks=["tag_duplicates"], limit=None)["items"] == []
        assert fresh_import_differences(b) == {}


def test_an_upgraded_brain_drops_the_tags_with_a_blank(tmp_path, db_path):
    """A brain made before (SQLite v50 / Postgres v52) holds them as tags: on open those pages are
    derived again, equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    write_tree(tmp_path / "v", {"a.md": "---\ntags: [Nested Folder, files]\n---\nx\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        with b.transaction():  # as the old page model left it
            b.conn.execute("INSERT INTO tags(page_id, tag, tag_key, inline) SELECT id, 'Nested Folder', 'nested folder', 0 FROM pages")
            _rewind(b.conn, pg._blank_tag_pages, dbmod._m50_blank_tags)
    with Brain.open(db_path) as b:
        assert b.tags("a") == ["files"]
        assert fresh_import_differences(b) == {}


def test_tag_and_untag_keep_an_item_with_a_blank(tmp_path, db_path):
    write_tree(tmp_path / "v", {"d.md": "---\ntags: [Nested Folder, journal]\n---\nday\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
    ctx = ops.Context(db=str(db_path))
    ops.run("tag", {"slug": "d", "tag": "lisbon"}, ctx)
    ops.run("untag", {"slug": "d", "tag": "journal"}, ctx)
    with Brain.open(db_path) as b:
        assert b.tags("d") == ["lisbon"]
        assert b.get_text("d") == "---\ntags: [Nested Folder, lisbon]\n---\nday\n"
