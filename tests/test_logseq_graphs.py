"""A ``pages``/``journals`` folder is a Logseq graph's only beside the graph's ``logseq/config.edn``
(every Logseq graph has one): there opening ``key:: value`` lines are page properties and every
``#tag`` links its page (trial35); an Obsidian vault that merely has a ``pages/`` or
``journals/`` folder keeps Dataview fields and plain tags. The config coming or going re-derives
the graph's pages, equal to a fresh import."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.errors import GBrainError
from gbrain.page.markdown import graph_candidates, page_property_syntax, parse_page
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import write_tree

NOTE = "title:: Something Else\nalias:: Zed\ntags:: book\n\nRead #later with [[Link]].\n"


@pytest.mark.engine_free
@pytest.mark.parametrize("path, graphs, want", [
    ("pages/a.md", set(), "dataview"),
    ("pages/a.md", {""}, "logseq"),
    ("journals/2026_01_02.md", {""}, "logseq"),
    ("g/pages/a.md", {""}, "dataview"),
    ("g/pages/sub/a.md", {"g"}, "logseq"),
    ("Notes/a.md", {""}, "dataview"),
    ("a.md", {""}, "dataview"),
])
def test_a_pages_folder_is_a_graphs_only_beside_its_config(path, graphs, want):
    assert page_property_syntax(path, "auto", graphs) == want
    assert page_property_syntax(path, "logseq", set()) == "logseq" and page_property_syntax(path, "dataview", {""}) == "dataview"
    p = parse_page(NOTE, path, property_syntax=want)
    assert p.render() == NOTE
    assert (p.title == "Something Else") == (want == "logseq")
    assert ("later" in [ln.target for ln in p.links]) == (want == "logseq")


@pytest.mark.engine_free
def test_graph_candidates():
    assert graph_candidates("x/pages/journals/a.md") == ["x", "x/pages"]
    assert graph_candidates("pages.md") == [] and graph_candidates("a/pages.md") == []


def _state(b):
    c = b.conn
    title = c.execute("SELECT title FROM pages WHERE slug = 'pages/Project Alpha'").fetchone()[0]
    tags = sorted(r[0] for r in c.execute("SELECT t.tag FROM tags t JOIN pages p ON p.id = t.page_id WHERE p.slug = 'pages/Project Alpha'"))
    links = sorted(r[0] for r in c.execute("SELECT l.target FROM links l JOIN pages p ON p.id = l.from_page_id WHERE p.slug = 'pages/Project Alpha'"))
    return title, tags, links


def test_an_obsidian_vault_with_a_pages_folder_is_no_logseq_graph(tmp_path, db_path):
    tree = write_tree(tmp_path / "v", {".obsidian/app.json": "{}\n", "pages/Project Alpha.md": NOTE, "later.md": "x\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert _state(b) == ("Project Alpha", ["later"], ["Link"])
        assert b.conn.execute("SELECT count(*) FROM aliases").fetchone()[0] == 0
        assert fresh_import_differences(b) == {}
        # the graph's config comes: its pages are read as Logseq's, as a fresh import reads them
        b.save_file("logseq/config.edn", b"{:meta/version 1}\n")
        assert _state(b) == ("Something Else", ["book", "later"], ["Link", "book", "later"])
        assert fresh_import_differences(b) == {}
        b.delete_file("logseq/config.edn")
        assert _state(b) == ("Project Alpha", ["later"], ["Link"])
        assert fresh_import_differences(b) == {}
        b.save_page("pages/Project Alpha.md", NOTE + "more\n")
        assert _state(b)[0] == "Project Alpha"


def test_a_logseq_graph_is_read_as_one_at_import_and_after_edits(tmp_path, db_path):
    tree = write_tree(tmp_path / "g", {"logseq/config.edn": "{:meta/version 1}\n", "pages/Project Alpha.md": NOTE,
                                       "journals/2026_01_02.md": "- met [[Zed]] #later\n", "other/pages/x.md": "tags:: y\n- #z\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert _state(b) == ("Something Else", ["book", "later"], ["Link", "book", "later"])
        to = dict(b.conn.execute("SELECT l.target, p.slug FROM links l LEFT JOIN pages p ON p.id = l.to_page_id "
                                 "JOIN pages f ON f.id = l.from_page_id WHERE f.slug = 'journals/2026_01_02'").fetchall())
        assert to == {"Zed": "pages/Project Alpha", "later": None}
        # a nested pages folder with no config of its own is no graph's
        assert [r[0] for r in b.conn.execute("SELECT t.tag FROM tags t JOIN pages p ON p.id = t.page_id WHERE p.slug = 'other/pages/x'")] == ["z"]
        assert fresh_import_differences(b) == {}
        b.save_page("pages/New.md", "alias:: N\n- x\n")
        assert b.resolve_slug("N")["slug"] == "pages/New"
        assert fresh_import_differences(b) == {}


def test_an_upgraded_brain_reads_a_vaults_pages_folder_as_a_vaults(tmp_path, db_path):
    """A brain made before (SQLite v48 / Postgres v50) read every ``pages``/``journals`` folder as
    a Logseq graph's: on open those pages are derived again, equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    tree = write_tree(tmp_path / "v", {"pages/Project Alpha.md": NOTE, "g/logseq/config.edn": "{}\n", "g/pages/b.md": NOTE})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        b.set_config("property_syntax", "logseq")  # as the old page model read the vault's pages folder
        c = b.conn
        with b.transaction():
            c.execute("DELETE FROM config WHERE key = 'property_syntax'")
            _rewind(c, pg._logseq_graphs, dbmod._m49_logseq_graphs)
        assert _state(b)[0] == "Something Else"
    with Brain.open(db_path) as b:
        assert _state(b) == ("Project Alpha", ["later"], ["Link"])
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'g/pages/b'").fetchone()[0] == "Something Else"
        assert fresh_import_differences(b) == {}


def test_a_page_synced_into_and_out_of_a_graphs_pages_folder_is_read_anew(tmp_path, db_path):
    """sync takes a moved file as a rename of its page (same id, links resolved again): a page
    moved into a Logseq graph's ``pages/`` folder is then read as Logseq's (its ``tags::`` and
    ``alias::``, its ``#tag`` a link), and out of it as a vault's, as a fresh import reads it
    (the rename kept the tags, aliases and links its old folder gave)."""
    import os

    from gbrain.sync.engine import SyncEngine

    tree = write_tree(tmp_path / "g", {"logseq/config.edn": "{}\n", "notes/x.md": "tags:: foo\nalias:: Alias X\n\n- hello #bar\n",
                                       "other.md": "see [[Alias X]]\n"})
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, tree)
        eng.bind()
        assert eng.sync()["ok"]
        versions = b.conn.execute("SELECT count(*) FROM history").fetchone()[0]
        for src, dst in (("notes/x.md", "pages/x.md"), ("pages/x.md", "notes/x.md")):
            (tree / dst).parent.mkdir(exist_ok=True)
            os.rename(tree / src, tree / dst)
            rep = eng.sync()
            assert rep["ok"] and rep["counts"]["moved"] == 1, rep
            aliases = [r[0] for r in b.conn.execute("SELECT alias FROM aliases")]
            assert aliases == (["Alias X"] if dst.startswith("pages/") else []), (dst, aliases)
            assert fresh_import_differences(b) == {}, dst
        eng.close()
        # a move is no new version of the text: each move's two rows (the old name's, the new one's) only
        assert b.conn.execute("SELECT count(*) FROM history").fetchone()[0] == versions + 4


def _journal(b):
    title = b.conn.execute("SELECT title FROM pages WHERE slug = 'journals/2026_11_28'").fetchone()[0]
    to = b.conn.execute("SELECT p.slug FROM links l LEFT JOIN pages p ON p.id = l.to_page_id JOIN pages f ON f.id = l.from_page_id "
                        "WHERE f.slug = 'see' AND l.target = 'Nov 28th, 2026'").fetchone()[0]
    try:
        found = b.resolve_slug("Nov 28th, 2026")["slug"]
    except GBrainError:
        found = None
    return title, to, found


def test_an_obsidian_vaults_journals_folder_gets_no_logseq_journal_titles(tmp_path, db_path):
    """A vault with a ``journals/`` folder and no ``logseq/config.edn`` got Logseq's journal titles
    (``journals/2026_11_28.md`` titled "Nov 28th, 2026") and ``[[Nov 28th, 2026]]`` found it, by the
    path alone, while its properties and tags were already read as the vault's. Titles and the
    journal lookup follow the same graph detection; the config coming or going is a fresh import."""
    tree = write_tree(tmp_path / "v", {".obsidian/app.json": "{}\n", "journals/2026_11_28.md": "- met Ana\n",
                                       "see.md": "see [[Nov 28th, 2026]]\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert _journal(b) == ("2026_11_28", None, None)
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", b"{:meta/version 1}\n")
        assert _journal(b) == ("Nov 28th, 2026", "journals/2026_11_28", "journals/2026_11_28")
        assert fresh_import_differences(b) == {}
        b.delete_file("logseq/config.edn")
        assert _journal(b) == ("2026_11_28", None, None)
        assert fresh_import_differences(b) == {}


def test_an_upgraded_brain_drops_the_journal_titles_of_a_vaults_journals_folder(tmp_path, db_path):
    """A brain made before (SQLite v52 / Postgres v54) titled a vault's ``journals/2026_11_28.md``
    "Nov 28th, 2026" and resolved ``[[Nov 28th, 2026]]`` to it: on open those pages are derived
    again and the links to them resolved again, equal to a fresh import; a graph's journals stay."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    tree = write_tree(tmp_path / "v", {"journals/2026_11_28.md": "- met Ana\n", "see.md": "see [[Nov 28th, 2026]]\n",
                                       "g/logseq/config.edn": "{}\n", "g/journals/2026_11_29.md": "- x\n"})
    with Brain.open(db_path, create=True) as b:
        b.set_config("property_syntax", "logseq")  # as the old page model read the vault's journals folder
        import_tree(b, tree)
        c = b.conn
        with b.transaction():
            c.execute("DELETE FROM config WHERE key = 'property_syntax'")
            _rewind(c, pg._graphless_journals, dbmod._m53_graphless_journals)
        assert _journal(b) == ("Nov 28th, 2026", "journals/2026_11_28", "journals/2026_11_28")
    with Brain.open(db_path) as b:
        assert _journal(b) == ("2026_11_28", None, None)
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'g/journals/2026_11_29'").fetchone()[0] == "Nov 29th, 2026"
        assert fresh_import_differences(b) == {}
