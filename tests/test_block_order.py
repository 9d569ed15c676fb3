"""A quote followed at once by a list (no blank line between) and then another quote: mistune
3.4's block parser put the list first ([list, quote, quote]: its ``parse_block_quote`` parses
the block that ends the quote, which may parse more blocks, then inserts the quote before only
the *last* token). The page's links came out of order, and an inline ``%%`` comment left open in
the list hid the links of the quote *above* it (hypothesis found it: tests/test_relink.py's
``test_link_spans_find_the_links_the_parser_finds``). Blocks are now in document order; v33
derives the pages that may hold the shape again."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.page import markdown
from gbrain.page.markdown import parse_page
from gbrain.sync.importer import import_tree

from conftest import write_tree


def targets(text: str) -> list[str]:
    return [ln.target for ln in parse_page(text, "notes/p.md").links]


@pytest.mark.engine_free
@pytest.mark.parametrize("text, want", [
    ("> [[a]]\n- item [[d]]\n> [[e]]\n", ["a", "d", "e"]),
    ("> [[a]]\n- item %% [[d]]\n> [[e]]\n", ["a"]),  # the comment opened in the list hides what follows, not what precedes
    ("\n> [[a]]\n- item\n  %% [[b]] %%\n[[c]] %% [[d]]\n> [[e]]\n", ["a", "c"]),  # hypothesis' example
    ("> [[a]]\n1. one [[b]]\n2. two\n> [[c]]\n", ["a", "b", "c"]),
    ("> [[a]]\n- x\n> [[b]]\n- y [[c]]\n> [[d]]\n", ["a", "b", "c", "d"]),
    ("> [[a]]\n> - inner [[b]]\n> [[c]]\n- out [[d]]\n", ["a", "b", "c", "d"]),
])
def test_a_quote_then_a_list_then_a_quote_keeps_document_order(text, want):
    assert targets(text) == want
    tokens, _ = markdown._parse_ast(text)
    kinds = [t["type"] for t in tokens if t["type"] != "blank_line"]
    assert kinds[0] == "block_quote", kinds


def test_v33_derives_again_the_pages_an_older_parse_read_out_of_order(tmp_path, db_path):
    """A brain imported before v33 holds the old parse's links (``[[a]]`` hidden by the comment
    opened below it): on open the pages with a quote line are derived again and equal a fresh
    import. Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "v", {"a.md": "# A\n", "e.md": "# E\n", "q.md": "# Q\n\n> [[a]]\n- item %% [[e]]\n> [[e]]\n",
                                       "plain.md": "# Plain\n\n[[a]]\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        q = c.execute("SELECT id FROM pages WHERE slug = 'q'").fetchone()[0]
        with b.transaction():  # as the old parse left them: no link from q
            c.execute(f"DELETE FROM links WHERE from_page_id = {q}")
            _rewind(c, pg._quote_order_pages, dbmod._m33_block_order)
    with Brain.open(db_path) as b:
        got = [r[0] for r in b.conn.execute("SELECT target FROM links l JOIN pages p ON p.id = l.from_page_id WHERE p.slug = 'q'")]
        assert got == ["a"], got
        assert fresh_import_differences(b) == {}


def test_v37_derives_again_the_pages_with_a_mixed_underline(tmp_path, db_path):
    """A paragraph over a line of '=' and '-' mixed is a setext heading for mistune (the
    reference parser) and was a paragraph for the fast parser (a seed sweep of test_fastparse):
    a brain imported before v37 holds the fast parse's title (the file name); on open those pages
    are derived again (the heading is the title) and equal a fresh import. Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "v", {"notes/u.md": "Plans\n=-=\n", "a.md": "# A [[notes/u]]\n", "plain.md": "# Plain\n\n-= not a line\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        assert c.execute("SELECT title FROM pages WHERE slug = 'notes/u'").fetchone()[0] == "Plans"
        with b.transaction():  # as the fast parse left it: no heading, the file name for a title
            c.execute("UPDATE pages SET title = 'u' WHERE slug = 'notes/u'")
            _rewind(c, pg._mixed_underline_pages, dbmod._m37_mixed_underlines)
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'notes/u'").fetchone()[0] == "Plans"
        assert fresh_import_differences(b) == {}
