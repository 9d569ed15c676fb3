"""Logseq namespace pages: a page of a Logseq graph's ``pages/`` folder is titled as Logseq names
it from its file name, by the graph's ``logseq/config.edn`` ``:file/name-format``
(``:triple-lowbar``: ``Project___Alpha.md`` is ``Project/Alpha``; legacy, no setting:
``Project.Alpha.md`` and ``Project%2FAlpha.md`` are): ``[[Project/Alpha]]`` finds it (trial 57, D2).
A ``title::`` line wins, as in Logseq; a vault note named ``a___b.md`` keeps its name."""

from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.page.journals import name_format
from gbrain.page.markdown import logseq_page_name, page_property_syntax, parse_page
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import gbrain_in_process, link_targets, page_titles, write_tree

TRI = "{:meta/version 1\n :file/name-format :triple-lowbar}\n"
LEGACY = "{:meta/version 1}\n"


@pytest.mark.engine_free
@pytest.mark.parametrize("stem, fmt, want", [
    ("Project___Alpha", "triple-lowbar", "Project/Alpha"),
    ("a___b___c", "triple-lowbar", "a/b/c"),
    ("What%3F Why%3A", "triple-lowbar", "What? Why:"),
    ("Project%2FAlpha", "triple-lowbar", "Project/Alpha"),
    # one %XX at a time, as Logseq's url-encoded-pattern replace: a byte of a multi-byte
    # character alone is no UTF-8 and is kept (Logseq never writes one under :triple-lowbar)
    ("Caf%C3%A9 notes", "triple-lowbar", "Caf%C3%A9 notes"),
    ("Caf%c3%a9 %3f", "triple-lowbar", "Caf%c3%a9 ?"),
    # a control character (NUL: no Postgres text can hold it; a newline in a title) stays encoded
    ("a%00b", "triple-lowbar", "a%00b"),
    ("c%0Ad%7F%3F", "triple-lowbar", "c%0Ad%7F?"),
    ("a%00b.c%0A%3F", "legacy", "a%00b/c%0A?"),
    ("Caf%C3%A9.x", "legacy", "Café/x"),
    ("v1.2 notes", "triple-lowbar", "v1.2 notes"),
    ("___lead", "triple-lowbar", "lead"),
    ("100%", "triple-lowbar", "100%"),
    ("Project.Alpha", "legacy", "Project/Alpha"),
    ("Project%2FAlpha", "legacy", "Project/Alpha"),
    ("Project___Alpha", "legacy", "Project___Alpha"),
    ("bad%zz.x", "legacy", "bad%zz/x"),
    ("plain", "legacy", "plain"),
])
def test_logseq_page_name(stem, fmt, want):
    assert logseq_page_name(stem, fmt) == want


@pytest.mark.engine_free
def test_name_format_of_a_config():
    assert name_format(TRI) == "triple-lowbar"
    assert name_format(LEGACY) == "legacy" and name_format("") == "legacy"
    assert name_format("{;; :file/name-format :triple-lowbar\n}") == "legacy"
    assert name_format("{:file/name-format :legacy}") == "legacy"


@pytest.mark.engine_free
@pytest.mark.parametrize("text, want", [
    ('{:a "x :file/name-format :triple-lowbar"}', "legacy"),  # inside a string: no setting
    ('{:x "\n:file/name-format :triple-lowbar\n"}', "legacy"),
    ('{:a "b;c" :file/name-format :triple-lowbar}', "triple-lowbar"),  # a ';' in a string is no comment
    ('{:file/name-format\n ;; the format\n :triple-lowbar}', "triple-lowbar"),  # a comment between key and value
    ('{#_:file/name-format #_:triple-lowbar :x 1}', "legacy"),  # EDN's discard
    ('{:ui/x {:file/name-format :triple-lowbar}}', "legacy"),  # another key's map
    (r'{:a "\\" :file/name-format :triple-lowbar}', "triple-lowbar"),  # a string of an escaped backslash
    (r'{:a \" :file/name-format :triple-lowbar}', "triple-lowbar"),  # a character literal \"
    ('{:file/name-format #_"x" :triple-lowbar}', "triple-lowbar"),
    ('{:file/name-format :triple-lowbar', "legacy"),  # unclosed: Logseq's reader refuses it, its defaults
    ('[' * 100000 + ':file/name-format :triple-lowbar', "legacy"),  # deep nesting: no recursion, no top map
    ('{:file/name-format :triple-lowbar :file/name-format :legacy}', "legacy"),  # a key twice: refused too
])
def test_name_format_reads_edn_not_lines(text, want):
    """Strings, comments and ``#_`` discards are read as EDN reads them: only the top map's
    ``:file/name-format`` key sets the format."""
    assert name_format(text) == want


@pytest.mark.engine_free
@pytest.mark.parametrize("path, graphs, want", [
    ("pages/a.md", {"": "triple-lowbar"}, "logseq:triple-lowbar"),
    ("g/pages/sub/a.md", {"g": "legacy"}, "logseq:legacy"),
    ("journals/2026_01_02.md", {"": "triple-lowbar"}, "logseq"),
    ("pages/a.md", {"x": "triple-lowbar"}, "dataview"),
    ("pages/a.md", {""}, "logseq"),
])
def test_a_graph_pages_syntax_carries_its_name_format(path, graphs, want):
    assert page_property_syntax(path, "auto", graphs) == want


@pytest.mark.engine_free
def test_title_follows_logseq_only_in_a_graphs_pages():
    text = "- see [[Project/Beta]]\n"
    assert parse_page(text, "pages/Project___Alpha.md", property_syntax="logseq:triple-lowbar").title == "Project/Alpha"
    assert parse_page(text, "pages/Project.Alpha.md", property_syntax="logseq:legacy").title == "Project/Alpha"
    # title:: wins, as in Logseq; so does frontmatter's title
    assert parse_page("title:: Alpha!\n" + text, "pages/Project___Alpha.md", property_syntax="logseq:triple-lowbar").title == "Alpha!"
    assert parse_page("---\ntitle: Fm\n---\n" + text, "pages/Project___Alpha.md", property_syntax="logseq:triple-lowbar").title == "Fm"
    # an Obsidian note, or a page of a pages/ folder no graph's config is beside, keeps its file name
    for syntax in ("dataview", "auto", "logseq"):
        assert parse_page(text, "a___b.md", property_syntax=syntax).title == "a___b"
    assert parse_page(text, "pages/a___b.md", property_syntax="dataview").title == "a___b"
    for syntax in ("logseq:triple-lowbar", "dataview"):
        p = parse_page(text, "pages/Project___Alpha.md", property_syntax=syntax)
        assert p.render() == text


GRAPH = {
    "logseq/config.edn": TRI,
    "pages/Project___Alpha.md": "type:: project\nalias:: PA\n\n- the alpha\n",
    "pages/Project___Beta.md": "title:: Beta Project\n\n- the beta, see [[Project/Alpha]]\n",
    "pages/What%3F Why%3A.md": "- questions\n",
    "journals/2025_03_04.md": "- met about [[Project/Alpha]] and [[Project/Beta]] and [[What? Why:]]\n",
    "vault/a___b.md": "an obsidian note\n",
    "vault/see.md": "see [[a___b]] and [[a/b]]\n",
}



def test_a_graphs_namespace_pages_are_found_by_their_logseq_names(tmp_path, db_path):
    tree = write_tree(tmp_path / "g", GRAPH)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        t = page_titles(b)
        assert t["pages/Project___Alpha"] == "Project/Alpha"
        assert t["pages/Project___Beta"] == "Beta Project"  # title:: wins
        assert t["pages/What%3F Why%3A"] == "What? Why:"
        assert t["vault/a___b"] == "a___b"  # no graph's page: its file name
        assert link_targets(b, "journals/2025_03_04") == {"Project/Alpha": "pages/Project___Alpha", "Project/Beta": None,
                                                  "What? Why:": "pages/What%3F Why%3A"}
        assert link_targets(b, "vault/see") == {"a___b": "vault/a___b", "a/b": None}
        assert fresh_import_differences(b) == {}
    r = gbrain_in_process("--db", str(db_path), "backlinks", "Project/Alpha")
    assert r.returncode == 0, r.stderr
    assert "journals/2025_03_04" in r.stdout.decode() and "pages/Project___Beta" in r.stdout.decode()
    r = gbrain_in_process("--db", str(db_path), "get", "Project/Alpha")
    assert r.returncode == 0 and "the alpha" in r.stdout.decode(), r.stderr
    out = tmp_path / "out"
    assert gbrain_in_process("--db", str(db_path), "export", "--dir", str(out)).returncode == 0
    for rel, text in GRAPH.items():
        assert (out / rel).read_bytes() == text.encode()


def test_control_characters_in_a_file_name_stay_encoded(tmp_path, db_path):
    """``pages/a%00b.md``: Logseq's decoding would put a NUL in the title, which no Postgres text
    holds (the import failed); it and a ``%0A`` stay encoded, the rest is decoded."""
    tree = write_tree(tmp_path / "g", {"logseq/config.edn": TRI, "pages/a%00b%3F.md": "- x\n", "pages/c%0Ad.md": "- y\n",
                                       "pages/see.md": "- [[a%00b?]]\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        t = page_titles(b)
        assert t["pages/a%00b%3F"] == "a%00b?" and t["pages/c%0Ad"] == "c%0Ad"
        assert link_targets(b, "pages/see") == {"a%00b?": "pages/a%00b%3F"}
        assert fresh_import_differences(b) == {}


def test_a_namespace_page_is_found_by_its_name_under_an_opening_h1(tmp_path, db_path):
    """Logseq names a page by ``title::``, else its file name, before any heading: a namespace
    page opening with ``# Overview`` is still ``Project/Alpha`` (``[[Project/Alpha]]`` finds it),
    and so is any other page of a graph's ``pages/`` (``Plain``: tests/test_logseq_config.py).
    A page outside a graph keeps gbrain's rule (its opening H1)."""
    text = "# Overview\n\n- x\n"
    assert parse_page(text, "pages/Project___Alpha.md", property_syntax="logseq:triple-lowbar").title == "Project/Alpha"
    assert parse_page(text, "pages/Plain.md", property_syntax="logseq:triple-lowbar").title == "Plain"
    assert parse_page(text, "pages/Project___Alpha.md", property_syntax="dataview").title == "Overview"
    tree = write_tree(tmp_path / "g", {"logseq/config.edn": TRI, "pages/Project___Alpha.md": text,
                                       "pages/see.md": "- [[Project/Alpha]]\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert page_titles(b)["pages/Project___Alpha"] == "Project/Alpha"
        assert link_targets(b, "pages/see") == {"Project/Alpha": "pages/Project___Alpha"}
        b.save_file("logseq/config.edn", LEGACY.encode())  # ___ read as written: still the file's name
        assert page_titles(b)["pages/Project___Alpha"] == "Project___Alpha"
        assert link_targets(b, "pages/see") == {"Project/Alpha": None}
        assert fresh_import_differences(b) == {}


def test_incremental_saves_and_config_edits_equal_a_fresh_import(tmp_path, db_path):
    tree = write_tree(tmp_path / "g", GRAPH)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        b.save_page("pages/Team___Ops.md", "- ops\n")  # as watch/sync add a file
        b.save_page("journals/2025_03_05.md", "- [[Team/Ops]]\n")
        assert page_titles(b)["pages/Team___Ops"] == "Team/Ops"
        assert link_targets(b, "journals/2025_03_05") == {"Team/Ops": "pages/Team___Ops"}
        b.save_page("journals/2025_03_07.md", "- [[Team/Late]]\n")  # a link written before its page came
        b.save_page("pages/Team___Late.md", "- late\n")
        assert link_targets(b, "journals/2025_03_07") == {"Team/Late": "pages/Team___Late"}
        assert fresh_import_differences(b) == {}
        # the graph goes back to the legacy format: ___ is no namespace, '.' is
        b.save_page("pages/Old.Style.md", "- old\n")
        b.save_file("logseq/config.edn", LEGACY.encode())
        t = page_titles(b)
        assert t["pages/Team___Ops"] == "Team___Ops" and t["pages/Old.Style"] == "Old/Style"
        assert link_targets(b, "journals/2025_03_05") == {"Team/Ops": None}
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", TRI.encode())
        assert page_titles(b)["pages/Team___Ops"] == "Team/Ops"
        assert fresh_import_differences(b) == {}
        b.delete_file("logseq/config.edn")  # no graph: file names
        assert page_titles(b)["pages/Project___Alpha"] == "Project___Alpha"
        assert fresh_import_differences(b) == {}


def test_sync_adds_a_namespace_page(tmp_path, db_path):
    from gbrain.sync.engine import SyncEngine

    tree = write_tree(tmp_path / "g", GRAPH)
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, tree)
        eng.bind()
        assert eng.sync()["ok"]
        (tree / "pages" / "Project___Gamma.md").write_text("- gamma\n")
        (tree / "journals" / "2025_03_06.md").write_text("- [[Project/Gamma]]\n")
        assert eng.sync()["ok"]
        assert link_targets(b, "journals/2025_03_06") == {"Project/Gamma": "pages/Project___Gamma"}
        assert fresh_import_differences(b) == {}


def test_an_upgraded_brain_gets_the_logseq_names(tmp_path, db_path):
    """A brain made before (SQLite v71 / Postgres v76) titled ``pages/Project___Alpha.md``
    ``Project___Alpha``: on open the graph's pages whose file name Logseq decodes are derived
    again and the links resolved again, equal to a fresh import; other pages are not parsed."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    tree = write_tree(tmp_path / "g", GRAPH)
    with Brain.open(db_path, create=True) as b:
        b.set_config("property_syntax", "logseq")  # no name decoding: as the old page model titled them
        import_tree(b, tree)
        c = b.conn
        with b.transaction():
            c.execute("DELETE FROM config WHERE key = 'property_syntax'")
            _rewind(c, pg._logseq_names, dbmod._m71_logseq_names)
        assert page_titles(b)["pages/Project___Alpha"] == "Project___Alpha"
    with Brain.open(db_path) as b:
        assert page_titles(b)["pages/Project___Alpha"] == "Project/Alpha"
        assert link_targets(b, "journals/2025_03_04")["Project/Alpha"] == "pages/Project___Alpha"
        assert fresh_import_differences(b) == {}


def test_a_namespace_parent_with_no_file_is_no_dead_link(tmp_path, db_path):
    """Logseq shows a page for every namespace a page title holds (``Reading/Books/Dune`` makes
    ``Reading`` and ``Reading/Books``), file or not: ``[[Reading]]`` is no dead link (trial 61).
    A name no title starts with, or one outside a graph (an Obsidian vault), stays dead."""
    from gbrain.core.lint import lint

    tree = write_tree(tmp_path / "g", {
        "logseq/config.edn": "{:file/name-format :triple-lowbar}\n",
        "pages/Reading___Books___Dune.md": "- dune\n",
        "pages/contents.md": "- [[Reading]] [[reading/books]] [[Nowhere]] [[Read]]\n",
        "vault/Area___Sub.md": "- x\n",
        "vault/see.md": "- [[Area]] [[Reading]]\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        dead = {(f["slug"], f["target"]) for f in lint(b, checks=["dead_links"])["items"] if f["check"] == "dead_links"}
    assert dead == {("pages/contents", "Nowhere"), ("pages/contents", "Read"), ("vault/see", "Area"), ("vault/see", "Reading")}


def test_backlinks_of_a_name_logseq_shows_with_no_file(tmp_path, db_path):
    """In Logseq a tag or a linked name is a page, file or not, with its Linked References:
    ``backlinks "multi word tag"`` lists the graph's pages linking or tagging it (trial 61: it
    said "no page"). A name nobody links, or one linked only from outside a graph, is still no page."""
    tree = write_tree(tmp_path / "g", {
        "logseq/config.edn": "{:file/name-format :triple-lowbar}\n",
        "pages/Dune.md": "tags:: book\n\n- #[[multi word tag]] and [[Frank Herbert]]\n",
        "journals/2026_12_01.md": "- #[[Multi Word Tag]]\n",
        "vault/see.md": "- [[multi word tag]] [[Elsewhere]]\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
    r = gbrain_in_process("--db", str(db_path), "backlinks", "multi word tag")
    assert r.returncode == 0, r.stderr
    assert [ln.split()[0] for ln in r.stdout.decode().splitlines()] == ["journals/2026_12_01", "pages/Dune"]
    r = gbrain_in_process("--db", str(db_path), "backlinks", "book")
    assert r.returncode == 0 and r.stdout.decode().split()[0] == "pages/Dune", r.stderr
    for name in ("Elsewhere", "Nobody"):
        r = gbrain_in_process("--db", str(db_path), "backlinks", name)
        assert r.returncode == 1 and b"no page" in r.stderr, (name, r.stdout, r.stderr)
