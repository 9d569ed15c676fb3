"""A tag holds at least one character that is not a digit (Obsidian Help, "Tags", tag format:
``#1984`` is no tag, ``#y1984`` is), in the frontmatter's tags as inline (trial17: ``tags: [2026]``
was a tag while ``#2026`` was not)."""
from __future__ import annotations

import pytest

from conftest import write_tree
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.page.markdown import edit_frontmatter, parse_page
from gbrain.sync.importer import import_tree


@pytest.mark.engine_free
@pytest.mark.parametrize("fm, tags", [
    ("tags: [2026]", []),
    ("tags: 2026", []),
    ("tags: [2026, y2026, 3d_printing]", ["y2026", "3d_printing"]),
    ("tags: '2026 journal #1984'", ["journal"]),
    ("tags:\n  - '#1984'\n  - 2026/12\n  - year/2026", ["year/2026"]),
    ("tag: 42", []),
])
def test_a_numeric_frontmatter_tag_is_no_tag_as_inline(fm, tags):
    page = parse_page(f"---\n{fm}\n---\n#2026 #2026/12 #y1984 text\n")
    assert page.tags == tags
    assert page.inline_tags == ["y1984"]


@pytest.mark.engine_free
@pytest.mark.parametrize("fm, update, after", [
    ("tags: [2026, a]", ["a", "b"], "tags: [2026, a, b]"),
    ("tags: [2026, a]", [], "tags: [2026]"),
    ("tags: 2026, a", ["b"], "tags: b, 2026"),
    ("tags: 2026, a", [], "tags: '2026'"),
    ("tags: 2026", ["a"], "tags:\n- a\n- 2026"),
    ("tags:\n  - 2026\n  - a", ["a", "b"], "tags:\n  - 2026\n  - a\n  - b"),
    # a template's placeholder (no tag since v30) was lost the same way
    ("tags: daily, <% tp.file.folder() %>", ["daily", "new"], "tags: daily, new, <% tp.file.folder() %>"),
    ("tags: [daily, '{{date:YYYY}}']", [], "tags: ['{{date:YYYY}}']"),
])
def test_a_tag_edit_keeps_the_items_that_are_no_tags(fm, update, after):
    """`tag`/`untag` rewrite the tags property from the page's tags: an item that is no tag (a
    number, a template's placeholder) was dropped from the text. It stays."""
    page = parse_page(f"---\n{fm}\n---\nx\n")
    out = edit_frontmatter(page, tags=update)
    assert out == f"---\n{after}\n---\nx\n"
    assert parse_page(out).tags == update


def test_tag_and_untag_keep_a_number_in_the_tags(tmp_path, db_path):
    write_tree(tmp_path / "v", {"d.md": "---\ntags: [2026, journal]\n---\n#1984 day\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        assert b.tags("d") == ["journal"]
    ctx = ops.Context(db=str(db_path))
    ops.run("tag", {"slug": "d", "tag": "lisbon"}, ctx)
    ops.run("untag", {"slug": "d", "tag": "journal"}, ctx)
    with Brain.open(db_path) as b:
        assert b.tags("d") == ["lisbon"]
        assert b.get_text("d") == "---\ntags: [2026, lisbon]\n---\n#1984 day\n"
        assert [r["tag"] for r in ops.run("tags", {}, ctx)] == ["lisbon"]


def test_a_brain_made_before_drops_its_numeric_tags_on_open(tmp_path, db_path):
    """A brain made before v34 stored ``2026`` as a tag of ``tags: [2026]``: on open, the pages
    holding such a tag are derived again (only they), and equal a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    write_tree(tmp_path / "v", {"d.md": "---\ntags: [2026, journal]\n---\nx\n", "plain.md": "---\ntags: [solo]\n---\nx\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        c = b.conn
        with b.transaction():
            d = c.execute("SELECT id FROM pages WHERE slug = 'd'").fetchone()[0]
            c.execute("INSERT INTO tags(page_id, tag, tag_key, inline) VALUES (?, '2026', '2026', 0)", (d,))
            c.execute("UPDATE pages SET title = 'untouched' WHERE slug = 'plain'")
            _rewind(c, pg._numeric_tag_pages, dbmod._m34_numeric_tags)
    with Brain.open(db_path) as b:
        assert b.tags("d") == ["journal"]
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'plain'").fetchone()[0] == "untouched"
        with b.transaction():
            b.conn.execute("UPDATE pages SET title = 'plain' WHERE slug = 'plain'")
        assert fresh_import_differences(b) == {}
