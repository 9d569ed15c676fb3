"""What a person moving notes from Logseq finds (trial11, 2026-12-03): a Logseq page's
properties (``title::``, ``alias::``, ``tags::`` lines that open the page) name and tag it, and
``#[[multi word tag]]`` is a tag. Each keeps the round trip byte-exact and a fresh import equal
to the incremental one; a brain made before (v26, Postgres v26) gets them on open."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.errors import NotFound
from gbrain.page.markdown import logseq_properties, parse_page
from gbrain.sync.importer import import_tree

from conftest import write_tree

ACME = ("alias:: Acme, [[ACME Inc]]\ntags:: company, [[key account]], #vendor\ntype:: [[Company]]\n\n"
        "- Logistics company\n- Key decision\n  id:: 65a1b2c3-0000-4000-8000-000000000001\n  tags:: not-a-page-tag\n")
NAMESPACED = "title:: project/website redesign\nstatus:: doing\n- Owner [[Acme]] #[[customer call]]\n"


@pytest.mark.engine_free
def test_the_opening_property_lines_are_the_pages_properties():
    assert logseq_properties(ACME) == {"alias": "Acme, [[ACME Inc]]", "tags": "company, [[key account]], #vendor", "type": "[[Company]]"}
    assert logseq_properties(NAMESPACED) == {"title": "project/website redesign", "status": "doing"}
    # only at the very top: a block's properties, a line of text first, or code are none
    assert logseq_properties("- a block\n  alias:: X\n") == {}
    assert logseq_properties("Some text\nalias:: X\n") == {}
    assert logseq_properties("```\nalias:: X\n```\n") == {}
    assert logseq_properties("alias::X\n") == {"alias": "X"}
    assert logseq_properties("alias ::X\n") == {}
    assert logseq_properties("tags::\r\nalias:: B\r\n") == {"tags": "", "alias": "B"}


@pytest.mark.engine_free
def test_a_logseq_page_gets_its_title_aliases_and_tags():
    p = parse_page(ACME, "pages/Acme Corp.md")
    assert p.render() == ACME
    assert p.title == "Acme Corp"
    assert p.aliases == ["Acme", "ACME Inc"]
    assert p.all_tags == ["company", "key account", "vendor"]
    assert p.tags == []  # not frontmatter: tag/untag edit the frontmatter only
    p = parse_page(NAMESPACED, "pages/project___website redesign.md")
    assert p.title == "project/website redesign"
    assert p.all_tags == ["customer call"]
    # frontmatter first: its title wins, its tags and aliases come first (a Logseq graph's page:
    # in its pages folder; elsewhere, as in an Obsidian vault, such lines are Dataview fields:
    # tests/test_dataview_fields.py)
    p = parse_page("---\ntitle: T\ntags: [a]\naliases: [Z]\n---\ntitle:: L\ntags:: b\nalias:: Y\n- x\n", "pages/n.md")
    assert (p.title, p.all_tags, p.aliases) == ("T", ["a", "b"], ["Z", "Y"])


@pytest.mark.engine_free
@pytest.mark.parametrize("text, tags", [
    ("- met #[[customer call]] today\n", ["customer call"]),
    ("#[[Big Idea]] first\n", ["Big Idea"]),
    ("a#[[x y]] glued\n", []),  # a '#' after a letter starts no tag, as for #tag
    ("`#[[x y]]` code\n", []),
    ("%% #[[x y]] %% hidden\n", []),
    ("#![[x y]] embed\n", []),
    ("see [[x y]] and #plain\n", ["plain"]),
    ("#[[a b|shown]] #[[a b]]\n", ["a b"]),
])
def test_a_hash_before_a_wiki_link_is_a_tag(text, tags):
    p = parse_page(text, "j.md")
    assert p.render() == text
    assert p.inline_tags == tags


def test_an_imported_logseq_graph_resolves_aliases_and_lists_tags(tmp_path, db_path):
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "graph", {"logseq/config.edn": "{}\n", 
        "pages/Acme Corp.md": ACME,
        "pages/project___website redesign.md": NAMESPACED,
        "journals/2024_01_05.md": "- Call with [[ACME Inc]] about [[project/website redesign]]\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert b.resolve_slug("Acme")["slug"] == "pages/Acme Corp"
        to = dict(b.conn.execute("SELECT l.target, p.slug FROM links l JOIN pages f ON f.id = l.from_page_id "
                                 "LEFT JOIN pages p ON p.id = l.to_page_id WHERE f.slug = 'journals/2024_01_05'").fetchall())
        assert to == {"ACME Inc": "pages/Acme Corp", "project/website redesign": "pages/project___website redesign"}  # by its title::
        tags = {r[0] for r in b.conn.execute("SELECT DISTINCT tag FROM tags")}
        assert tags == {"company", "key account", "vendor", "customer call"}
        title = b.conn.execute("SELECT title FROM pages WHERE slug = 'pages/project___website redesign'").fetchone()[0]
        assert title == "project/website redesign"
        assert fresh_import_differences(b) == {}


def test_a_brain_made_before_gets_the_logseq_properties_on_open(tmp_path, db_path):
    """A brain made before v26 (Postgres v26) read no Logseq properties and no ``#[[tag]]``, and
    left ``[[a/b]]`` dangling beside a page titled ``a/b``: on open the pages whose text holds
    ``::`` or ``#[[`` are derived again and such links resolved, and equal a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "graph", {"logseq/config.edn": "{}\n", "pages/Acme Corp.md": ACME, "pages/w.md": NAMESPACED, "pages/x.md": "- [[Acme]]\n",
                                           "notes/tcp.md": "---\ntitle: TCP/IP\n---\nA.\n", "notes/y.md": "See [[TCP/IP]].\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        with b.transaction():  # as the old page model left them
            c.execute("DELETE FROM tags")
            c.execute("DELETE FROM aliases")
            c.execute("UPDATE pages SET title = 'w', title_key = 'w', search_aliases = '' WHERE slug = 'pages/w'")
            c.execute("UPDATE links SET to_page_id = NULL WHERE target IN ('Acme', 'TCP/IP')")
            _rewind(c, pg._logseq_pages, dbmod._m26_logseq_properties)
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT p.slug FROM links l JOIN pages p ON p.id = l.to_page_id WHERE l.target = 'Acme'").fetchone()[0] == "pages/Acme Corp"
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'pages/w'").fetchone()[0] == "project/website redesign"
        assert b.conn.execute("SELECT p.slug FROM links l JOIN pages p ON p.id = l.to_page_id WHERE l.target = 'TCP/IP'").fetchone()[0] == "notes/tcp"
        assert fresh_import_differences(b) == {}


def test_untag_of_a_logseq_property_tag_says_where_it_is(tmp_path, db_path):
    """``untag`` edits the frontmatter only: a tag of a ``tags::`` line is refused naming that
    line (not ``#tag``, which the page does not hold); ``tag`` adds frontmatter above it and the
    page keeps its Logseq aliases and tags."""
    from gbrain.errors import BadInput

    tree = write_tree(tmp_path / "graph", {"logseq/config.edn": "{}\n", "pages/Acme Corp.md": ACME})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        with pytest.raises(BadInput) as e:
            b.untag("Acme", "key account")
        assert "tags:: line" in str(e.value) and "#key account" not in str(e.value), str(e.value)
        b.tag("Acme", "migrated")
        p = b.parsed(b.resolve_slug("Acme"))
        assert p.render() == "---\ntags:\n- migrated\n---\n" + ACME
        assert (p.all_tags, p.aliases) == (["migrated", "company", "key account", "vendor"], ["Acme", "ACME Inc"])


@pytest.mark.engine_free
def test_a_control_character_in_the_text_makes_no_hash_ref_tag():
    text = "#\x01not a tag\x01 and #a\x01b and #[[real one]]\n"
    assert parse_page(text, "n.md").inline_tags == ["a", "real one"]


@pytest.mark.engine_free
def test_an_export_archive_given_as_the_folder_says_to_unzip_it(tmp_path):
    """Notion, Bear and Logseq hand their export over as a .zip: ``import`` of it says to unzip
    it (exit 2), as for any file that is no folder; another file says only that."""
    import zipfile

    from conftest import gbrain_in_process

    z = tmp_path / "Export-2f6c.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("Export-2f6c/Page 0123456789abcdef0123456789abcdef.md", "# Page\n")
    r = gbrain_in_process("--db", str(tmp_path / "b.db"), "import", str(z))
    assert r.returncode == 2, r
    assert "not a directory" in r.stderr.decode() and "unzip" in r.stderr.decode(), r.stderr
    (tmp_path / "note.md").write_text("# x\n")
    r = gbrain_in_process("--db", str(tmp_path / "b.db"), "import", str(tmp_path / "note.md"))
    assert r.returncode == 2 and "unzip" not in r.stderr.decode(), r.stderr


def test_a_wiki_link_with_a_slash_finds_the_page_titled_so(tmp_path, db_path):
    """Logseq names a namespace page ``a/b`` (file ``a___b.md`` or ``a%2Fb.md``, with ``title:: a/b``
    where the name needs it): ``[[a/b]]`` finds the page titled ``a/b`` when no path does, by
    every segment (case and separators loose); a markdown path link stays a path; a page at the
    path wins; a save that gives or takes the title re-resolves the link, as a fresh import."""
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "graph", {"logseq/config.edn": "{}\n", 
        "pages/project%2Fdata platform.md": "title:: project/data platform\n- x\n",
        "pages/w.md": "title:: Other/Data Platform\n- y\n",
        "j.md": "- [[project/data platform]] [[Project/Data-Platform]] [x](project/data%20platform.md) [[other/data platform]]\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)

        def to():
            return {(k, t): s for k, t, s in b.conn.execute(
                "SELECT l.kind, l.target, p.slug FROM links l JOIN pages f ON f.id = l.from_page_id "
                "LEFT JOIN pages p ON p.id = l.to_page_id WHERE f.slug = 'j'").fetchall()}
        assert to() == {("wiki", "project/data platform"): "pages/project%2Fdata platform",
                        ("wiki", "Project/Data-Platform"): "pages/project%2Fdata platform",
                        ("markdown", "project/data platform"): None, ("wiki", "other/data platform"): "pages/w"}, to()
        b.put("pages/w", "- y, no title now\n")
        assert to()[("wiki", "other/data platform")] is None
        b.put("other/data platform", "# A page at the path\n")
        assert to()[("wiki", "other/data platform")] == "other/data platform"
        assert fresh_import_differences(b) == {}


# ---- Logseq journals: [[Nov 28th, 2026]] is journals/2026_11_28.md (trial11b) -------------------

@pytest.mark.engine_free
@pytest.mark.parametrize("name, title_fmt, file_fmt, title", [
    ("2026_11_28", None, None, "Nov 28th, 2026"),
    ("2026_11_01", None, None, "Nov 1st, 2026"),
    ("2026_11_02", None, None, "Nov 2nd, 2026"),
    ("2026_11_03", None, None, "Nov 3rd, 2026"),
    ("2026_11_11", None, None, "Nov 11th, 2026"),
    ("2026_11_12", None, None, "Nov 12th, 2026"),
    ("2026_11_22", None, None, "Nov 22nd, 2026"),
    ("2026_11_28", "yyyy-MM-dd", None, "2026-11-28"),
    ("2026_11_28", "EEEE, dd.MM.yyyy", None, "Saturday, 28.11.2026"),
    ("2026_11_28", "E, MM/dd/yyyy", None, "Sat, 11/28/2026"),
    ("2026_11_28", "do MMMM yyyy", None, "28th November 2026"),
    ("2026_11_28", "yyyy'年'MM'月'dd'日'", None, "2026年11月28日"),
    ("2026-11-28", None, "yyyy-MM-dd", "Nov 28th, 2026"),
    ("2026-11-28", None, None, "Nov 28th, 2026"),  # not the file-name format: Logseq's fixed yyyy-MM-dd reads it (safe-journal-title-formatters)
    ("20261128", None, None, None),  # none of them
    ("2026_02_30", None, None, None),  # no such day
    ("2026_11_28 notes", None, None, None),
    ("notes", None, None, None),
])
def test_a_journal_file_name_gives_the_title_logseq_shows(name, title_fmt, file_fmt, title):
    from gbrain.page import journals

    assert journals.journal_title(name, title_fmt or journals.TITLE_FORMAT, file_fmt or journals.FILE_FORMAT) == title


@pytest.mark.engine_free
def test_the_journal_formats_come_from_config_edn_or_logseqs_defaults():
    from gbrain.page.journals import formats

    assert formats("{:meta/version 1}") == ("MMM do, yyyy", "yyyy_MM_dd")
    assert formats('{:journal/page-title-format "yyyy-MM-dd"\n :journal/file-name-format "yyyy-MM-dd"}') == ("yyyy-MM-dd", "yyyy-MM-dd")
    # a commented-out setting sets nothing; the first one counts
    assert formats(';; :journal/page-title-format "EEEE"\n {:journal/page-title-format "dd.MM.yyyy"}') == ("dd.MM.yyyy", "yyyy_MM_dd")


def _targets(b, slug):
    return dict(b.conn.execute("SELECT l.target, p.slug FROM links l JOIN pages f ON f.id = l.from_page_id "
                               "LEFT JOIN pages p ON p.id = l.to_page_id WHERE f.slug = ?", (slug,)).fetchall())


@pytest.mark.engine_free
@pytest.mark.parametrize("path, text, title", [
    ("journals/2026_11_28.md", "- standup\n", "Nov 28th, 2026"),
    ("notes/graph/journals/2026_01_02.md", "- a\n", "Jan 2nd, 2026"),
    ("journals/2026_11_28.md", "# Big day\n- a\n", "Nov 28th, 2026"),  # Logseq names it by its file, never an H1
    ("journals/2026_11_28.md", "title:: Launch\n- a\n", "Launch"),
    ("pages/2026_11_28.md", "- a\n", "2026_11_28"),  # not in a journals folder
    ("journals/2026_02_30.md", "- a\n", "2026_02_30"),  # no day
    ("journals/2026-11-28.md", "- a\n", "Nov 28th, 2026"),  # not Logseq's default file name, one of its day formats
    ("journals/20261128.md", "- a\n", "20261128"),  # none of them
])
def test_a_journal_is_titled_as_logseq_shows_it(path, text, title):
    """A Logseq journal was titled by its file name (``2026_11_28``: ``list``, search hits) where
    Logseq shows ``Nov 28th, 2026``: a page in a ``journals`` folder whose name is a day in one of
    Logseq's day formats (``yyyy_MM_dd``, ``yyyy-MM-dd``: ``safe-journal-title-formatters``), with no ``title::`` of its own, gets the title Logseq's default format
    gives (an opening H1 is none: Logseq's ``get-page-name`` takes the file name before a heading)."""
    p = parse_page(text, path)
    assert p.render() == text
    assert p.title == title


def test_a_link_to_a_journal_by_its_logseq_title_resolves(tmp_path, db_path):
    """``[[Nov 28th, 2026]]`` finds ``journals/2026_11_28.md`` (Logseq's default formats when the
    graph's ``logseq/config.edn`` sets none), in the nearest graph; a page with that name or title wins; a name that is no
    journal's day stays dangling; lint reports none of them dead; a fresh import is equal."""
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "vault", {
        "graph/logseq/config.edn": "{:meta/version 1}\n",
        "other/logseq/config.edn": "{:meta/version 1}\n",
        "graph/journals/2026_11_28.md": "- standup\n",
        "graph/journals/2026_11_29.md": "- [[Nov 28th, 2026]] was busy\n",
        "graph/pages/Ana.md": "- met on [[nov 28th, 2026]] and [[Nov 29th, 2026]] and [[Nov 30th, 2026]] and [[Dec 1st, 2026]]\n",
        "graph/pages/Dec 1st, 2026.md": "- a page of that name\n",
        "other/journals/2026_11_28.md": "- another graph's day\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert _targets(b, "graph/pages/Ana") == {"nov 28th, 2026": "graph/journals/2026_11_28", "Nov 29th, 2026": "graph/journals/2026_11_29",
                                                 "Nov 30th, 2026": None, "Dec 1st, 2026": "graph/pages/Dec 1st, 2026"}
        assert _targets(b, "graph/journals/2026_11_29") == {"Nov 28th, 2026": "graph/journals/2026_11_28"}
        assert b.resolve_slug("Nov 29th, 2026")["slug"] == "graph/journals/2026_11_29"  # get, backlinks, … by that name
        assert fresh_import_differences(b) == {}
        # a journal that appears or goes: the links follow
        b.put("graph/journals/2026_11_30", "- new day\n")
        assert _targets(b, "graph/pages/Ana")["Nov 30th, 2026"] == "graph/journals/2026_11_30"
        b.delete_page("graph/journals/2026_11_28")
        assert _targets(b, "graph/pages/Ana")["nov 28th, 2026"] == "other/journals/2026_11_28"
        assert fresh_import_differences(b) == {}


def test_a_graphs_config_edn_says_how_journals_are_titled_and_an_edit_of_it_relinks(tmp_path, db_path):
    """The graph's ``logseq/config.edn`` sets the title format (and the file-name format): links
    follow it, and an edit, removal or arrival of that file resolves them again as a fresh import
    of the tree would."""
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "graph", {
        "logseq/config.edn": '{:journal/page-title-format "yyyy-MM-dd"\n :journal/file-name-format "yyyy-MM-dd"}\n',
        "journals/2026-11-28.md": "- standup\n",
        "pages/Ana.md": "- [[2026-11-28]] and [[Nov 28th, 2026]] and [[Saturday, 28.11.2026]]\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        # (Logseq reads a link's name as a day by the title format, then "MMM do, yyyy", "yyyy-MM-dd", "yyyy_MM_dd")
        assert _targets(b, "pages/Ana") == {"2026-11-28": "journals/2026-11-28", "Nov 28th, 2026": "journals/2026-11-28", "Saturday, 28.11.2026": None}
        b.save_file("logseq/config.edn", b'{:journal/page-title-format "EEEE, dd.MM.yyyy"\n :journal/file-name-format "yyyy-MM-dd"}\n')
        assert _targets(b, "pages/Ana") == {"2026-11-28": "journals/2026-11-28", "Nov 28th, 2026": "journals/2026-11-28", "Saturday, 28.11.2026": "journals/2026-11-28"}
        assert fresh_import_differences(b) == {}
        b.delete_file("logseq/config.edn")  # Logseq's defaults: the file name is no day in yyyy_MM_dd
        assert _targets(b, "pages/Ana") == {"2026-11-28": "journals/2026-11-28", "Nov 28th, 2026": None, "Saturday, 28.11.2026": None}
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", b'{:journal/file-name-format "yyyy-MM-dd"}\n')
        assert _targets(b, "pages/Ana") == {"2026-11-28": "journals/2026-11-28", "Nov 28th, 2026": "journals/2026-11-28", "Saturday, 28.11.2026": None}
        assert fresh_import_differences(b) == {}


def test_a_brain_made_before_resolves_journal_titles_on_open(tmp_path, db_path):
    """A brain made before v31 (Postgres v31) left ``[[Nov 28th, 2026]]`` dangling: on open the
    dangling links that may name a journal are resolved again, and equal a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "graph", {"logseq/config.edn": "{}\n", "journals/2026_11_28.md": "- day\n",
                                           "pages/a.md": "- [[Nov 28th, 2026]] [[Q3 2027]]\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        with b.transaction():  # as the old resolver left them
            c.execute("UPDATE links SET to_page_id = NULL")
            _rewind(c, pg._migrants, dbmod._m31_migrants)
    with Brain.open(db_path) as b:
        assert _targets(b, "pages/a") == {"Nov 28th, 2026": "journals/2026_11_28", "Q3 2027": None}
        assert fresh_import_differences(b) == {}


# ---- Notion: names keep Notion's id, pages open with # Title and property lines (trial11b) -----

NOTION_ID = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d"
PLAN = ("# Project Plan\n\nStatus: Done\nTags: infra, q3 growth\nCompany: Acme (../Companies%20" + NOTION_ID + "/Acme%20" + NOTION_ID + ".md)\n"
        "Created: November 28, 2026 3:04 PM\n\n## Goal\n\nShip it. #later\n")


@pytest.mark.engine_free
@pytest.mark.parametrize("path, name", [
    (f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}.md", "Project Plan"),
    (f"Project Plan {NOTION_ID}.md", "Project Plan"),
    (f"{NOTION_ID}.md", NOTION_ID),  # a name that is only hex: no id to drop
    (f"Plan {NOTION_ID.upper()}.md", f"Plan {NOTION_ID.upper()}"),  # Notion writes lowercase
    (f"Plan_{NOTION_ID}.md", f"Plan_{NOTION_ID}"),  # a space before the id
    (f"Plan {NOTION_ID[:-1]}.md", f"Plan {NOTION_ID[:-1]}"),  # 31 digits
    (f"Plan {NOTION_ID}0.md", f"Plan {NOTION_ID}0"),  # 33
    ("sha a3f9c2.md", "sha a3f9c2"),
])
def test_a_notion_file_name_without_its_id_is_the_name_notion_shows(path, name):
    from gbrain.page.markdown import notion_name

    assert notion_name(path) == name


@pytest.mark.engine_free
def test_a_notion_pages_tags_property_tags_it_and_only_on_notions_shape():
    p = parse_page(PLAN, f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}.md")
    assert p.render() == PLAN
    assert (p.title, p.all_tags, p.tags) == ("Project Plan", ["infra", "q3 growth", "later"], [])
    # another vault's note with the same lines: its name is no Notion export's
    for path in ("Project Plan.md", f"Project Plan {NOTION_ID.upper()}.md", f"Plan-{NOTION_ID}.md"):
        assert parse_page(PLAN, path).all_tags == ["later"], path
    # the properties follow the opening # Title, before any other line
    assert parse_page("# P\n\nSome text\nTags: a\n", f"P {NOTION_ID}.md").all_tags == []
    assert parse_page("Intro\n# P\nTags: a\n", f"P {NOTION_ID}.md").all_tags == []
    assert parse_page("---\ntags: [z]\n---\n# P\nTags: a\n", f"P {NOTION_ID}.md").all_tags == ["z"]  # (frontmatter: no Notion export)
    assert parse_page("# P\nOwner: Ana\nTags: a,b , c\n", f"P {NOTION_ID}.md").all_tags == ["a", "b", "c"]
    assert parse_page("# P\r\n\r\nTags: a, b\r\n\r\nx\r\n", f"P {NOTION_ID}.md").all_tags == ["a", "b"]
    # a Notion page without an opening # Title is titled by its name without the id
    assert parse_page("Just text\n", f"Wiki {NOTION_ID}/Loose Note {NOTION_ID}.md").title == "Loose Note"


@pytest.mark.engine_free
def test_a_notion_relation_property_is_a_link_to_its_pages():
    """A relation property of a Notion page (``Company: Acme (../Companies%20<id>/Acme%20<id>.md)``,
    several separated by ``, ``) was text: each item whose path ends with Notion's id is a
    markdown link to that path (percent-decoded, relative to the page), its line the context;
    another value in parentheses (no Notion id), or a page not of Notion's shape, links nothing."""
    p = parse_page(PLAN, f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}.md")
    assert p.render() == PLAN
    rel = [ln for ln in p.links if ln.kind == "markdown"]
    assert [(ln.target, ln.text) for ln in rel] == [(f"../Companies {NOTION_ID}/Acme {NOTION_ID}", "Acme")]
    assert rel[0].context == "Company: Acme"  # (the line as Notion shows it: trial35)
    two = (f"# Deal\nProjects: Alpha (Alpha%20{NOTION_ID}.md), Beta Two (../P/Beta%20Two%20{NOTION_ID[::-1]}.md)\n"
           "Status: Done (see notes.md)\n\nBody [Alpha](Alpha%20" + NOTION_ID + ".md).\n")
    got = parse_page(two, f"Deal {NOTION_ID}.md").links
    assert [(ln.target, ln.text, ln.count) for ln in got] == [(f"Alpha {NOTION_ID}", "Alpha", 2), (f"../P/Beta Two {NOTION_ID[::-1]}", "Beta Two", 1)]
    assert [ln.target for ln in parse_page(two, "Deal.md").links] == [f"Alpha {NOTION_ID}"]  # only the body's link


def test_a_notion_export_links_by_title_and_lists_its_tags(tmp_path, db_path):
    """After importing a Notion export as it is: ``[[Project Plan]]`` typed in gbrain finds the page
    (its opening ``# Title``; the name keeps Notion's id), ``list --tag`` finds it by its ``Tags:``
    property, its property lines are searchable text, and a fresh import is equal."""
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "Export", {
        f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}.md": PLAN,
        f"Wiki {NOTION_ID}/Untitled {NOTION_ID[::-1]}.md": "No title line.\n",
        f"Companies {NOTION_ID}/Acme {NOTION_ID}.md": "# Acme\n",
        "mine.md": "See [[Project Plan]] and [[Untitled]].\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert _targets(b, "mine") == {"Project Plan": f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}",
                                       "Untitled": f"Wiki {NOTION_ID}/Untitled {NOTION_ID[::-1]}"}
        assert b.resolve_slug("Project Plan")["slug"] == f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}"
        # the Company relation property links Acme
        assert [r["slug"] for r in b.backlinks(f"Companies {NOTION_ID}/Acme {NOTION_ID}")] == [f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}"]
        assert {r[0] for r in b.conn.execute("SELECT tag FROM tags")} == {"infra", "q3 growth", "later"}
        assert [r["slug"] for r in b.list_pages(tag="q3 growth")] == [f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}"]
        from gbrain.errors import BadInput

        assert b.untag("Project Plan", "infra").changed  # untag edits the Tags: line, where tag writes (review of trial 57)
        assert b.get_text("Project Plan") == PLAN.replace("Tags: infra, q3 growth", "Tags: q3 growth")
        with pytest.raises(BadInput) as e:  # a tag written inline only: it says where
            b.untag("Project Plan", "later")
        assert "#later" in str(e.value), str(e.value)
        assert fresh_import_differences(b) == {}


def test_a_brain_made_before_gets_notions_tags_on_open(tmp_path, db_path):
    """A brain made before v31 (Postgres v31) read no Notion ``Tags:`` property: on open the pages
    with Notion's name shape are derived again, and equal a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "Export", {f"Project Plan {NOTION_ID}.md": PLAN, f"Loose {NOTION_ID}.md": "x\n", "n.md": "# N\nTags: no\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        with b.transaction():  # as the old page model left them
            c.execute("DELETE FROM tags")
            c.execute("UPDATE pages SET title = ?, title_key = ? WHERE slug = ?", (f"Loose {NOTION_ID}", f"loose-{NOTION_ID}", f"Loose {NOTION_ID}"))
            _rewind(c, pg._migrants, dbmod._m31_migrants)
    with Brain.open(db_path) as b:
        assert {r[0] for r in b.conn.execute("SELECT tag FROM tags")} == {"infra", "q3 growth", "later"}
        assert b.conn.execute("SELECT title FROM pages WHERE slug = ?", (f"Loose {NOTION_ID}",)).fetchone()[0] == "Loose"
        assert fresh_import_differences(b) == {}


# ---- Bear: closed multi-word tags #to read# under config tag_syntax bear (trial11b) ------------

@pytest.mark.engine_free
@pytest.mark.parametrize("text, obsidian, bear", [
    ("Next: #to read# and #systems thinking#\n", ["to", "systems"], ["to read", "systems thinking"]),
    ("#work/side projects# then #plain\n", ["work/side", "plain"], ["work/side projects", "plain"]),
    ("#reading/books# #a#\n", ["reading/books", "a"], ["reading/books", "a"]),
    ("#todo now # and #x\n", ["todo", "x"], ["todo", "x"]),  # white space before the closing '#': no closed tag
    ("#a some text #b more#\n", ["a", "b"], ["a", "b more"]),
    ("`#not a tag#` #1984# #x y#z\n", ["x"], ["x y"]),
    ("#one\ntwo#\n", ["one"], ["one"]),  # not across lines
    ("%% #hid den# %% #[[ref tag]] #c d#\n", ["ref tag", "c"], ["ref tag", "c d"]),
])
def test_bears_closed_tags_are_read_under_its_tag_syntax(text, obsidian, bear):
    assert parse_page(text, "n.md").all_tags == obsidian
    p = parse_page(text, "n.md", tag_syntax="bear")
    assert p.render() == text
    assert p.all_tags == bear


def test_tag_syntax_bear_re_derives_every_page_and_equals_a_fresh_import(tmp_path, db_path):
    """``config set tag_syntax bear`` reads every page's tags again (Bear's ``#to read#``), a save
    after it too, and a fresh import of the brain's tree under the same setting gives the same
    rows; ``config unset`` goes back to Obsidian's reading."""
    from gbrain.errors import BadInput
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "bear", {"Reading list.md": "# Reading list\n#to read# #books\n", "Work.md": "# Work\n#work/side projects#\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)

        def tags():
            return sorted(r[0] for r in b.conn.execute("SELECT DISTINCT tag FROM tags"))
        assert tags() == ["books", "to", "work/side"]
        with pytest.raises(BadInput):
            b.set_config("tag_syntax", "logseq")
        b.set_config("tag_syntax", "bear")
        assert tags() == ["books", "to read", "work/side projects"]
        b.put("Later", "# Later\n#some day# soon\n")
        assert tags() == ["books", "some day", "to read", "work/side projects"]
        assert [r["slug"] for r in b.list_pages(tag="to read")] == ["Reading list"]
        assert fresh_import_differences(b) == {}
        b.unset_config("tag_syntax")
        assert tags() == ["books", "some", "to", "work/side"]
        assert fresh_import_differences(b) == {}


# ---- Bear: a heading link [[Note/Heading]] is a link to the note (brain in Bear's syntax) -----

@pytest.mark.engine_free
def test_a_bear_heading_link_links_the_note_under_its_syntax():
    """Bear writes a link to a heading of a note as ``[[Note/Heading]]`` (the last ``/`` parts
    them; ``\\/`` is a slash of the title): under ``tag_syntax bear`` its target is the note, each
    note once (two headings of one note: one link, counted twice); Obsidian's reading keeps the path."""
    text = "# Plan\nSee [[Roadmap/Q3 goals]], [[Roadmap/Risks]] and [[TCP\\/IP]].\n![[Roadmap/Q3 goals]]\n"
    obs = parse_page(text, "Plan.md")
    assert [(ln.target, ln.count) for ln in obs.links] == [("Roadmap/Q3 goals", 2), ("Roadmap/Risks", 1), ("TCP\\/IP", 1)]
    p = parse_page(text, "Plan.md", tag_syntax="bear")
    assert p.render() == text
    assert [(ln.kind, ln.target, ln.count) for ln in p.links] == [("wiki", "Roadmap", 3), ("wiki", "TCP/IP", 1)]
    assert p.links[0].forms == ["[[Roadmap/Q3 goals]]", "![[Roadmap/Q3 goals]]", "[[Roadmap/Risks]]"]
    fm = "---\nrelated: \"[[Roadmap/Risks]]\"\n---\n# Plan\n"
    assert [(ln.kind, ln.target) for ln in parse_page(fm, "Plan.md", tag_syntax="bear").links] == [("property", "Roadmap")]


def test_bear_heading_links_resolve_to_the_note_and_a_fresh_import_agrees(tmp_path, db_path):
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "bear", {"Roadmap.md": "# Roadmap\n## Q3 goals\nShip.\n", "Plan.md": "# Plan\nSee [[Roadmap/Q3 goals]].\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)

        def backlinks():
            return [r["slug"] for r in b.backlinks("Roadmap")]
        assert backlinks() == []  # Obsidian's reading: a path no page has
        b.set_config("tag_syntax", "bear")
        assert backlinks() == ["Plan"]
        assert fresh_import_differences(b) == {}
        b.unset_config("tag_syntax")
        assert backlinks() == []


def test_v38_derives_again_notion_relations_journal_titles_and_bear_heading_links(tmp_path, db_path):
    """A brain made before v38 (Postgres v38) held a Notion relation property as text, a Logseq
    journal titled by its file name and a Bear heading link ``[[Note/Heading]]`` as a link to a
    path no page has: on open the Notion-shaped pages with a ``.md)``, the journals and, in a brain
    set to Bear's syntax, the pages with such a link are derived again, and equal a fresh import.
    Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "Export", {f"Project Plan {NOTION_ID}.md": PLAN.replace("../Companies%20" + NOTION_ID + "/", ""),
                                            f"Acme {NOTION_ID}.md": "# Acme\n", "Roadmap.md": "# Roadmap\n## Risks\n",
                                            "Plan.md": "# Plan\nSee [[Roadmap/Risks]].\n", "journals/2026_11_28.md": "- day\n",
                                            "logseq/config.edn": "{}\n"})
    with Brain.open(db_path, create=True) as b:
        b.set_config("tag_syntax", "bear")
        import_tree(b, tree)
        c = b.conn

        def backlinks(slug):
            return [r["slug"] for r in b.backlinks(slug)]
        assert backlinks(f"Acme {NOTION_ID}") == [f"Project Plan {NOTION_ID}"] and backlinks("Roadmap") == ["Plan"]
        with b.transaction():  # as the old page model left them
            c.execute("DELETE FROM links WHERE kind = 'markdown'")
            c.execute("UPDATE links SET target = 'Roadmap/Risks', target_name = 'risks', to_page_id = NULL WHERE from_page_id = (SELECT id FROM pages WHERE slug = 'Plan')")
            c.execute("UPDATE pages SET title = '2026_11_28', title_key = '2026_11_28' WHERE slug = 'journals/2026_11_28'")
            _rewind(c, pg._migrant_leftovers, dbmod._m38_migrant_leftovers)
        assert backlinks(f"Acme {NOTION_ID}") == [] and backlinks("Roadmap") == []
    with Brain.open(db_path) as b:
        assert [r["slug"] for r in b.backlinks(f"Acme {NOTION_ID}")] == [f"Project Plan {NOTION_ID}"]
        assert [r["slug"] for r in b.backlinks("Roadmap")] == ["Plan"]
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'journals/2026_11_28'").fetchone()[0] == "Nov 28th, 2026"
        assert fresh_import_differences(b) == {}


def test_unlink_of_a_notion_relation_says_to_edit_its_line(tmp_path, db_path):
    """A relation property is a link with no link syntax to turn into text: ``unlink`` says so and
    names the line (bad input, nothing written), not 'could not find the link text'."""
    tree = write_tree(tmp_path / "Export", {f"Project Plan {NOTION_ID}.md": PLAN.replace("../Companies%20" + NOTION_ID + "/", ""),
                                            f"Acme {NOTION_ID}.md": "# Acme\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        from gbrain.errors import BadInput

        with pytest.raises(BadInput) as e:
            b.unlink("Project Plan", "Acme")
        assert "Notion relation property (Company: Acme):" in str(e.value), str(e.value)
        assert b.get_text(f"Project Plan {NOTION_ID}") == PLAN.replace("../Companies%20" + NOTION_ID + "/", "")


def test_a_path_of_notion_titles_finds_the_page(tmp_path, db_path):
    """``[[Team Wiki/Engineering]]`` (the path Notion shows: titles, no ids) found nothing, since
    every folder and file name of the export keeps Notion's id: it finds the page titled
    ``Engineering`` whose folders are ``Team Wiki`` without their id, also when that page comes
    after the link (as a fresh import); a page at that very path wins; another folder does not match."""
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "Export", {
        f"Team Wiki {NOTION_ID}/Engineering {NOTION_ID[::-1]}.md": "# Engineering\n",
        f"Other {NOTION_ID}/Engineering {NOTION_ID[:16] * 2}.md": "# Engineering\n",
        "mine.md": "See [[Team Wiki/Engineering]] and [[Nowhere/Engineering]].\n",
        "Notes/mine2.md": "See [[team wiki/engineering]].\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        eng = f"Team Wiki {NOTION_ID}/Engineering {NOTION_ID[::-1]}"
        assert _targets(b, "mine") == {"Team Wiki/Engineering": eng, "Nowhere/Engineering": None}
        assert _targets(b, "Notes/mine2") == {"team wiki/engineering": eng}
        assert b.resolve_slug("Team Wiki/Engineering")["slug"] == eng  # get, backlinks, … by that path
        assert fresh_import_differences(b) == {}
        b.put("later", "# Later\n[[Sales Wiki/Pipeline]]\n")
        assert _targets(b, "later") == {"Sales Wiki/Pipeline": None}
        b.put(f"Sales Wiki {NOTION_ID}/Pipeline {NOTION_ID}", "# Pipeline\n")
        assert _targets(b, "later") == {"Sales Wiki/Pipeline": f"Sales Wiki {NOTION_ID}/Pipeline {NOTION_ID}"}
        assert fresh_import_differences(b) == {}
        b.put("Team Wiki/Engineering", "# Engineering here\n")  # a page at the path itself wins
        assert _targets(b, "mine")["Team Wiki/Engineering"] == "Team Wiki/Engineering"
        assert fresh_import_differences(b) == {}


def test_v38_resolves_a_path_of_notion_titles_in_a_brain_made_before(tmp_path, db_path):
    """A brain made before v38 (Postgres v38) left ``[[Team Wiki/Engineering]]`` dangling: on open
    the dangling wiki links holding a ``/`` are resolved again, and equal a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "Export", {f"Team Wiki {NOTION_ID}/Engineering {NOTION_ID}.md": "# Engineering\n",
                                            "mine.md": "See [[Team Wiki/Engineering]].\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        with b.transaction():  # as the old resolver left it
            c.execute("UPDATE links SET to_page_id = NULL")
            _rewind(c, pg._migrant_leftovers, dbmod._m38_migrant_leftovers)
        assert _targets(b, "mine") == {"Team Wiki/Engineering": None}
    with Brain.open(db_path) as b:
        assert _targets(b, "mine") == {"Team Wiki/Engineering": f"Team Wiki {NOTION_ID}/Engineering {NOTION_ID}"}
        assert fresh_import_differences(b) == {}


def test_unlink_in_a_bear_brain_unlinks_the_heading_links_too(tmp_path, db_path):
    """``unlink Plan Roadmap`` in a brain set to Bear's syntax turned ``[[Roadmap]]`` into text but
    left ``[[Roadmap/Risks]]`` (a link to Roadmap too) and said 'updated': both become text."""
    tree = write_tree(tmp_path / "bear", {"Roadmap.md": "# Roadmap\n## Risks\n", "Plan.md": "# Plan\nSee [[Roadmap/Risks]] and [[Roadmap]]; [[TCP\\/IP]].\n"})
    with Brain.open(db_path, create=True) as b:
        b.set_config("tag_syntax", "bear")
        import_tree(b, tree)
        assert [r["slug"] for r in b.backlinks("Roadmap")] == ["Plan"]
        b.unlink("Plan", "Roadmap")
        assert b.get_text("Plan") == "# Plan\nSee Roadmap/Risks and Roadmap; [[TCP\\/IP]].\n"
        assert b.backlinks("Roadmap") == []


def _rename_then_fix(tmp_path, db_path, files: dict, old: str, new: str, bear: bool = False) -> tuple[dict, "Brain"]:
    """``files`` synced into a new brain, file ``old`` renamed to ``new`` in the folder and synced
    (a move: its page keeps its id, its old links dangle), then ``lint --fix-safe`` on dead links."""
    from gbrain import operations as ops
    from gbrain.sync.engine import SyncEngine

    root = write_tree(tmp_path / "v", files)
    b = Brain.open(db_path, create=True)
    if bear:
        b.set_config("tag_syntax", "bear")
    eng = SyncEngine(b, root)
    eng.bind()
    assert eng.sync()["ok"]
    (root / new).parent.mkdir(parents=True, exist_ok=True)
    (root / old).rename(root / new)
    assert eng.sync()["counts"]["moved"] == 1
    eng.close()
    return ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b), b


def test_lint_fix_rewrites_the_note_of_a_bear_heading_link_after_a_rename(tmp_path, db_path):
    """Bear's ``[[Roadmap/Risks]]`` links the note Roadmap (markdown.bear_heading_links). After
    Roadmap.md became Roadmap 2027.md, ``lint --fix-safe`` skipped the linking page "could not find
    each link … such as a reference-style link" (the text scan read the target Roadmap/Risks):
    it rewrites the note part now and keeps ``/Risks`` (an escaped ``\\/`` in another link stays)."""
    files = {"Roadmap.md": "# Roadmap\n## Risks\n", "Plan.md": "# Plan\nSee [[Roadmap/Risks]], [[Roadmap]] and [[TCP\\/IP]].\n"}
    r, b = _rename_then_fix(tmp_path, db_path, files, "Roadmap.md", "Roadmap 2027.md", bear=True)
    with b:
        assert not r["skipped"], r["skipped"]
        assert [f["slug"] for f in r["fixed"]] == ["Plan"], r["fixed"]
        assert b.get_text("Plan") == "# Plan\nSee [[Roadmap 2027/Risks]], [[Roadmap 2027]] and [[TCP\\/IP]].\n"
        assert [x["slug"] for x in b.backlinks("Roadmap 2027")] == ["Plan"]


def test_lint_fix_names_a_notion_relation_it_leaves_for_what_it_is(tmp_path, db_path):
    """A Notion relation property (``Company: Acme (../Companies%20<id>/Acme%20<id>.md)``) is a
    link the text scan of the rename fix does not read: the page is skipped saying so, not
    "such as a reference-style link"."""
    acme = f"Companies {NOTION_ID}/Acme {NOTION_ID}.md"
    plan = f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}"
    files = {acme: "# Acme\n", plan + ".md": PLAN}
    r, b = _rename_then_fix(tmp_path, db_path, files, acme, f"Companies {NOTION_ID}/Acme Corp {NOTION_ID}.md")
    with b:
        reasons = [s["reason"] for s in r["skipped"] if s["slug"] == plan]
        assert reasons and "reference-style" not in reasons[0] and "Notion relation" in reasons[0], r["skipped"]
        assert b.get_text(plan) == PLAN


HINT = "gbrain config set property_syntax logseq"


def test_a_logseq_graph_with_pages_outside_pages_folders_gets_one_hint(tmp_path, db_path):
    """Trial 29: a tree with ``logseq/config.edn`` whose pages are not in ``pages/`` or
    ``journals/`` reads their ``key::`` lines as Dataview fields under ``property_syntax auto``
    (4179b25). The import says so once, naming the setting that reads them as Logseq does;
    advice only: the pages' derived views are those of the same import without the hint."""
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "graph", {
        "logseq/config.edn": "{:meta/version 1}\n",
        "Acme Corp.md": ACME,
        "notes/project.md": NAMESPACED,
        "README.md": "A graph kept in git.\n",
    })
    said: list[str] = []
    with Brain.open(db_path, create=True) as b:
        rep = import_tree(b, tree, on_warning=said.append)
        hints = [w for w in said if HINT in w]
        assert len(hints) == 1 and "pages/" in hints[0] and "journals/" in hints[0], said
        assert [w for w in rep["warnings"] if HINT in w] == hints
        with pytest.raises(NotFound):  # advice only: alias:: is still a Dataview field, no alias
            b.resolve_slug("ACME Inc", loose=False)
        assert fresh_import_differences(b) == {}
        said.clear()
        import_tree(b, tree, on_warning=said.append)  # nothing new: no hint again
        assert not [w for w in said if HINT in w], said


@pytest.mark.parametrize("case", ["pages-folder", "no-config", "no-properties", "setting-chosen"])
def test_no_property_syntax_hint_where_it_would_change_nothing(tmp_path, db_path, case):
    files = {"logseq/config.edn": "{:meta/version 1}\n", "Acme Corp.md": ACME}
    if case == "pages-folder":
        files = {"logseq/config.edn": files["logseq/config.edn"], "pages/Acme Corp.md": ACME}
    elif case == "no-config":
        del files["logseq/config.edn"]
    elif case == "no-properties":
        files["Acme Corp.md"] = "- Logistics company\n- key:: inside a block\n"
    tree = write_tree(tmp_path / "graph", files)
    said: list[str] = []
    with Brain.open(db_path, create=True) as b:
        if case == "setting-chosen":
            b.set_config("property_syntax", "dataview")
        import_tree(b, tree, on_warning=said.append)
    assert not [w for w in said if HINT in w], said


def test_the_property_syntax_hint_is_one_line_on_stderr(tmp_path, db_path):
    from conftest import gbrain
    tree = write_tree(tmp_path / "graph", {"logseq/config.edn": "{:meta/version 1}\n", "Acme Corp.md": ACME})
    r = gbrain("import", str(tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr.decode()
    lines = [l for l in r.stderr.decode().splitlines() if HINT in l]
    assert len(lines) == 1 and HINT not in r.stdout.decode(), r.stderr.decode()


@pytest.mark.engine_free
def test_a_notion_relations_path_is_no_searched_text_and_no_context():
    """Notion shows a relation property as its names (``Company: Acme``): the path after each name
    (``(../Companies%20<id>/Acme%20<id>.md)``) is an address, as a markdown link's URL is, so search
    does not read it (trial35: ``search Companies`` found every page related to a company, its
    snippets showed the encoded path) and the link's context is the line as Notion shows it.
    CRLF lines too; a page not of Notion's shape keeps its text."""
    from gbrain.search.keyword import search_fields

    path = f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}.md"
    for eol in ("\n", "\r\n"):
        text = PLAN.replace("\n", eol)
        p = parse_page(text, path)
        body = search_fields(p)["search_body"]
        addr = f"(../Companies%20{NOTION_ID}/Acme%20{NOTION_ID}.md)"
        assert body == p.compiled_truth.replace(addr, " " * len(addr))
        assert [ln.context for ln in p.links] == ["Company: Acme"]
    two = f"# Deal\nProjects: Alpha (Alpha%20{NOTION_ID}.md), Beta Two (../P/Beta%20Two%20{NOTION_ID[::-1]}.md)\n\nBody.\n"
    p = parse_page(two, f"Deal {NOTION_ID}.md")
    assert "Alpha" in search_fields(p)["search_body"] and NOTION_ID not in search_fields(p)["search_body"]
    assert [ln.context for ln in p.links] == ["Projects: Alpha, Beta Two"] * 2
    assert search_fields(parse_page(two, "Deal.md"))["search_body"] is None  # not Notion's: text


def test_v45_derives_again_the_search_text_and_context_of_notion_relations(tmp_path, db_path):
    """A brain made before v45 (Postgres v47) searched a Notion relation's path: on open the
    Notion-shaped pages with a ``.md)`` are derived again (their search text and link context),
    ``search Firms`` (the related page's folder) no longer finds the page relating it, and the brain equals a fresh import.
    Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.search import keyword
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "Export", {f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}.md": PLAN.replace("Companies%20", "Firms%20"),
                                            f"Firms {NOTION_ID}/Acme {NOTION_ID}.md": "# Acme\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn

        def hits():
            return [h["slug"] for h in keyword.search(c, "Firms")]
        assert hits() == [f"Firms {NOTION_ID}/Acme {NOTION_ID}"]
        with b.transaction():  # as the old page model left them
            c.execute("UPDATE pages SET search_body = NULL WHERE slug LIKE 'Wiki %'")
            c.execute("UPDATE links SET context = ? WHERE kind = 'markdown'", (f"Company: Acme (../Firms%20{NOTION_ID}/Acme%20{NOTION_ID}.md)",))
            _rewind(c, pg._notion_relation_text, dbmod._m45_notion_relation_text)
        assert f"Wiki {NOTION_ID}/Project Plan {NOTION_ID}" in hits()
    with Brain.open(db_path) as b:
        assert [h["slug"] for h in keyword.search(b.conn, "Firms")] == [f"Firms {NOTION_ID}/Acme {NOTION_ID}"]
        assert [r["context"] for r in b.backlinks(f"Firms {NOTION_ID}/Acme {NOTION_ID}")] == ["Company: Acme"]
        assert fresh_import_differences(b) == {}


def test_a_logseq_tag_with_no_page_is_no_dead_link(tmp_path, db_path):
    """In Logseq a tag is a page whether or not a file holds it: ``#[[supply chain]]`` and
    ``tags:: [[machine learning]]`` (links too, as Logseq reads them) are no dead links to report
    (trial35: lint's dead_links listed every such tag and offered `unlink`, which would drop the
    tag). A plain ``[[Missing Page]]`` still dangles, and so does ``[[project]]`` beside a ``#project``
    tag (a link written as a link)."""
    from gbrain.core.lint import lint

    tree = write_tree(tmp_path / "graph", {"logseq/config.edn": "{}\n", 
        "pages/Falcon.md": "tags:: project, [[machine learning]]\n\n- risk #[[supply chain]] and #budget\n- see [[Missing Page]]\n",
        "journals/2025_03_04.md": "- memo #[[supply chain]]\n- also [[project]] #project\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        got = sorted((f["slug"], f["target"]) for f in lint(b, checks=["dead_links"], limit=None)["items"])
    assert got == [("journals/2025_03_04", "project"), ("pages/Falcon", "Missing Page")]


@pytest.mark.engine_free
def test_a_logseq_tag_is_a_link_to_its_page():
    """In a Logseq graph ``#budget`` is a reference to the page ``budget``, as ``#[[budget]]`` and
    ``[[budget]]`` are (Logseq lists the block under the page's Linked References), and so is a
    ``tags::`` item written bare (``tags:: project``): a link of kind ``wiki``, its form as written,
    the sentence around it its context (trial35: ``backlinks budget`` listed none of the blocks
    tagged ``#budget``). Written twice with ``[[budget]]``: one link, counted twice. In an Obsidian
    vault a ``#tag`` stays no link."""
    text = ("tags:: project, [[machine learning]]\nalias:: PF\n\n- Budget approved #budget\n"
            "- see [[Budget]] and #[[supply chain]] #budget\n- `#code` is no tag\n")
    p = parse_page(text, "pages/Falcon.md")
    assert p.render() == text
    got = [(ln.kind, ln.target, ln.count, ln.forms, ln.context) for ln in p.links]
    assert got == [
        ("wiki", "machine learning", 1, ["[[machine learning]]"], "tags:: project, machine learning alias:: PF"),
        ("wiki", "Budget", 2, ["[[Budget]]", "#budget"], "see Budget and #supply chain #budget"),
        ("wiki", "supply chain", 1, ["[[supply chain]]"], "see Budget and #supply chain #budget"),
        ("wiki", "project", 1, ["tags:: project"], "tags:: project, machine learning alias:: PF"),
    ]
    assert [ln.target for ln in parse_page(text, "notes/Falcon.md").links] == ["machine learning", "Budget", "supply chain"]  # a vault: no
    assert [ln.target for ln in parse_page("- Spent 12k #budget\n", "journals/2025_03_06.md").links] == ["budget"]


def test_backlinks_of_a_logseq_tag_page_and_v47_on_open(tmp_path, db_path):
    """``backlinks budget`` lists the pages tagging ``#budget``; lint reports none of the tags as
    dead links; a brain made before v47 (Postgres v49) gets the links on open, equal to a fresh
    import. Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.core.lint import lint
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "graph", {"logseq/config.edn": "{}\n", 
        "pages/budget.md": "- anything over 50k needs sign-off\n",
        "pages/Falcon.md": "tags:: project\n\n- Budget approved #budget #meeting\n",
        "journals/2025_03_06.md": "- Spent 12k on GPUs #budget\n",
        "notes/vault.md": "Obsidian note #budget\n",
    })
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert [(r["slug"], r["context"]) for r in b.backlinks("budget")] == [
            ("journals/2025_03_06", "Spent 12k on GPUs #budget"), ("pages/Falcon", "Budget approved #budget #meeting")]
        assert lint(b, checks=["dead_links"], limit=None)["items"] == []
        with b.transaction():  # as the old page model left them
            b.conn.execute("DELETE FROM links")
            _rewind(b.conn, pg._logseq_tag_links, dbmod._m47_logseq_tag_links)
    with Brain.open(db_path) as b:
        assert [r["slug"] for r in b.backlinks("budget")] == ["journals/2025_03_06", "pages/Falcon"]
        assert fresh_import_differences(b) == {}


def test_unlink_of_a_logseq_tag_says_it_is_a_tag(tmp_path, db_path):
    """A Logseq tag is a link with no link syntax to turn into text: ``unlink`` says it is the tag
    (bad input, nothing written), not 'could not find the link text'; a ``[[budget]]`` written
    beside the tag is turned into text as usual."""
    from gbrain.errors import BadInput

    tree = write_tree(tmp_path / "graph", {"logseq/config.edn": "{}\n", "pages/budget.md": "- rules\n", "pages/Falcon.md": "- approved #budget\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        with pytest.raises(BadInput) as e:
            b.unlink("pages/Falcon", "budget")
        assert "by its tag (#budget)" in str(e.value), str(e.value)
        assert b.conn.execute("SELECT compiled_truth FROM pages WHERE slug = 'pages/Falcon'").fetchone()[0] == "- approved #budget\n"
