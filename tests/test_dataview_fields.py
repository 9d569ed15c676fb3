"""``key:: value`` lines opening a note (trial27): in a Logseq graph they are page properties
(``title::`` titles, ``alias::`` aliases, ``tags::`` tags the page: tests/test_migrant.py), in an
Obsidian vault Dataview inline fields (Obsidian shows the file name, adds no alias and no tag).
Config ``property_syntax`` (``auto``, the default; ``logseq``; ``dataview``) says which; under
``auto`` the page's path decides (a ``pages`` or ``journals`` folder is a Logseq graph's when
the graph's ``logseq/config.edn`` is beside it: tests/test_logseq_graphs.py)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.page import markdown
from gbrain.page.markdown import parse_page
from gbrain.sync.importer import import_tree

from conftest import write_tree

FIELDS = "title:: Something Else\nalias:: Zed\ntags:: book\nstatus:: doing\n\nBody with [[Link]].\n"


def _names(p):
    return (p.title, p.aliases, p.all_tags)


@pytest.mark.engine_free
@pytest.mark.parametrize("path, syntax, logseq", [
    ("Notes/Project Alpha.md", "auto", False),
    ("Project Alpha.md", "auto", False),
    ("pages/Project Alpha.md", "auto", True),
    ("graph/pages/Project Alpha.md", "auto", True),
    ("journals/2026_11_28.md", "auto", True),
    ("Notes/Project Alpha.md", "logseq", True),
    ("pages/Project Alpha.md", "dataview", False),
])
def test_opening_fields_are_logseq_properties_only_in_a_logseq_graph(path, syntax, logseq):
    for fast in (True, False):  # both parsers read them alike
        try:
            markdown.FAST_PARSE = fast
            p = parse_page(FIELDS, path, property_syntax=syntax)
        finally:
            markdown.FAST_PARSE = True
        assert p.render() == FIELDS
        if logseq:
            assert _names(p) == ("Something Else", ["Zed"], ["book"])
        else:
            title = "Nov 28th, 2026" if path.startswith("journals/") else "Project Alpha"
            assert _names(p) == (title, [], [])
        assert [ln.target for ln in p.links] == ["Link"] + (["book"] if logseq else [])  # (a Logseq tag links its page)


def test_an_obsidian_vault_keeps_file_names_and_a_logseq_graph_its_properties(tmp_path, db_path):
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "t", {
        ".obsidian/app.json": "{}\n",
        "Notes/Project Alpha.md": FIELDS,
        "Notes/Other.md": "See [[Something Else]] and [[Project Alpha]].\n",
        "graph/logseq/config.edn": "{}\n",  # (every Logseq graph has one: tests/test_logseq_graphs.py)
        "graph/pages/Acme Corp.md": "title:: Acme Corporation\nalias:: ACME\ntags:: vendor\n- x\n",
        "graph/journals/2024_01_05.md": "- Call with [[ACME]]\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        title = lambda s: b.conn.execute("SELECT title FROM pages WHERE slug = ?", (s,)).fetchone()[0]  # noqa: E731
        assert title("Notes/Project Alpha") == "Project Alpha"
        assert title("graph/pages/Acme Corp") == "Acme Corporation"
        assert {r[0] for r in b.conn.execute("SELECT alias FROM aliases")} == {"ACME"}
        assert {r[0] for r in b.conn.execute("SELECT tag FROM tags")} == {"vendor"}
        to = dict(b.conn.execute("SELECT l.target, p.slug FROM links l LEFT JOIN pages p ON p.id = l.to_page_id").fetchall())
        assert to["Project Alpha"] == "Notes/Project Alpha" and to["Something Else"] is None and to["ACME"] == "graph/pages/Acme Corp"
        assert fresh_import_differences(b) == {}
        # a page saved into a graph's folder reads its properties; the setting re-derives every page
        b.save_page("graph/pages/Moved.md", FIELDS)
        assert title("graph/pages/Moved") == "Something Else"
        assert fresh_import_differences(b) == {}
        b.set_config("property_syntax", "logseq")
        assert title("Notes/Project Alpha") == "Something Else"
        assert dict(b.conn.execute("SELECT l.target, p.slug FROM links l LEFT JOIN pages p ON p.id = l.to_page_id "
                                   "JOIN pages f ON f.id = l.from_page_id WHERE f.slug = 'Notes/Other'").fetchall())["Something Else"] is not None
        assert fresh_import_differences(b) == {}
        b.set_config("property_syntax", "dataview")
        assert title("graph/pages/Acme Corp") == "Acme Corp" and b.conn.execute("SELECT count(*) FROM tags").fetchone()[0] == 0
        assert fresh_import_differences(b) == {}
        b.unset_config("property_syntax")
        assert (title("Notes/Project Alpha"), title("graph/pages/Acme Corp")) == ("Project Alpha", "Acme Corporation")
        assert fresh_import_differences(b) == {}


def test_an_upgraded_brain_reads_an_obsidian_notes_fields_as_fields(tmp_path, db_path):
    """A brain made before (SQLite v41 / Postgres v42) read every page's opening ``::`` lines as
    Logseq properties: on open those pages are derived again, equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "t", {"Notes/Project Alpha.md": FIELDS, "pages/Acme.md": "alias:: ACME\n- x\n", "logseq/config.edn": "{}\n",
                                       "Notes/Other.md": "See [[Something Else]].\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        b.set_config("property_syntax", "logseq")  # as the old page model read every page
        c = b.conn
        with b.transaction():
            c.execute("DELETE FROM config WHERE key = 'property_syntax'")
            _rewind(c, pg._dataview_pages, dbmod._m41_dataview_fields)
        assert c.execute("SELECT title FROM pages WHERE slug = 'Notes/Project Alpha'").fetchone()[0] == "Something Else"
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'Notes/Project Alpha'").fetchone()[0] == "Project Alpha"
        assert {r[0] for r in b.conn.execute("SELECT alias FROM aliases")} == {"ACME"}
        assert b.conn.execute("SELECT count(*) FROM tags").fetchone()[0] == 0
        assert fresh_import_differences(b) == {}
