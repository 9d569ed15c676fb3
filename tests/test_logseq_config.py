"""A Logseq graph's page names and its ``logseq/config.edn`` settings, as Logseq reads them.

- A page of a graph's ``pages/`` folder is named by ``title::``, else by its file name, never by an
  opening H1 (Logseq's ``get-page-name``: "`title::` property, file name parsing, first block
  content", in that order; logseq/logseq deps/graph-parser/src/logseq/graph_parser/extract.cljc):
  ``pages/Reading List.md`` opening with ``# Books I want`` is ``Reading List``.
- The journal formats (``:journal/page-title-format``, ``:journal/file-name-format``) are read from
  the config's top map as EDN (``journals.settings``), as ``:file/name-format`` is: not a line regex.
- A save of ``config.edn`` whose read settings stay the same derives nothing again.
- The fixture ``tests/data/logseq/config.edn`` has the forms of the config Logseq writes into every
  new file graph (its source is cited in the file).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.page import journals
from gbrain.page.journals import formats, name_format
from gbrain.page.markdown import parse_page
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import link_targets, page_titles, write_tree

DEFAULT_CONFIG = (Path(__file__).parent / "data" / "logseq" / "config.edn").read_text(encoding="utf-8")



# ---- names: the file before an H1 ------------------------------------------------------------

@pytest.mark.engine_free
@pytest.mark.parametrize("syntax", ["logseq:triple-lowbar", "logseq:legacy"])
def test_a_graph_page_is_named_by_its_file_before_an_opening_h1(syntax):
    text = "# Books I want\n\n- Dune\n"
    assert parse_page(text, "pages/Reading List.md", property_syntax=syntax).title == "Reading List"
    assert parse_page("title:: Wishlist\n\n" + text, "pages/Reading List.md", property_syntax=syntax).title == "Wishlist"
    assert parse_page("---\ntitle: Fm\n---\n" + text, "pages/Reading List.md", property_syntax=syntax).title == "Fm"
    assert parse_page(text, "pages/Reading List.md", property_syntax=syntax).render() == text


@pytest.mark.engine_free
@pytest.mark.parametrize("path, syntax", [
    ("Reading List.md", "auto"),  # an Obsidian vault's note
    ("pages/Reading List.md", "dataview"),  # a vault's own pages/ folder (no graph's config beside it)
    ("pages/Reading List.md", "logseq"),  # config property_syntax logseq: any folder, today's rule
])
def test_a_page_outside_a_graphs_pages_keeps_its_opening_h1(path, syntax):
    assert parse_page("# Books I want\n\n- Dune\n", path, property_syntax=syntax).title == "Books I want"


GRAPH = {
    "logseq/config.edn": DEFAULT_CONFIG,
    "pages/Reading List.md": "# Books I want\n\n- Dune\n",
    "pages/Project___Alpha.md": "# Overview\n\n- x\n",
    "journals/2026_11_28.md": "- [[Reading List]] and [[Books I want]] and [[Project/Alpha]]\n",
    "vault/Shelf.md": "# My shelf\n\nsee [[Books I want]]\n",
}


def test_a_link_by_the_file_name_finds_a_graph_page_with_an_h1(tmp_path, db_path):
    """``[[Reading List]]`` finds ``pages/Reading List.md`` (as it did by its file name); the H1
    ``Books I want`` is no name of it, as in Logseq (``[[Books I want]]`` there is another page,
    with no file); a vault's note keeps its H1 as title."""
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", GRAPH))
        t = page_titles(b)
        assert t["pages/Reading List"] == "Reading List" and t["pages/Project___Alpha"] == "Project/Alpha"
        assert t["vault/Shelf"] == "My shelf"
        assert link_targets(b, "journals/2026_11_28") == {"Reading List": "pages/Reading List", "Books I want": None,
                                                 "Project/Alpha": "pages/Project___Alpha"}
        assert link_targets(b, "vault/Shelf") == {"Books I want": None}
        assert fresh_import_differences(b) == {}
        # the config goes: the graph's pages are a vault's again, titled by their H1
        b.delete_file("logseq/config.edn")
        assert page_titles(b)["pages/Reading List"] == "Books I want"
        assert link_targets(b, "vault/Shelf") == {"Books I want": "pages/Reading List"}
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DEFAULT_CONFIG.encode())
        assert page_titles(b)["pages/Reading List"] == "Reading List"
        assert link_targets(b, "vault/Shelf") == {"Books I want": None}
        assert fresh_import_differences(b) == {}


def test_incremental_saves_of_h1_pages_equal_a_fresh_import(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", GRAPH))
        b.save_page("journals/2026_11_29.md", "- [[Later]] and [[Late H1]]\n")  # written before the page came
        b.save_page("pages/Later.md", "# Late H1\n\n- y\n")
        assert link_targets(b, "journals/2026_11_29") == {"Later": "pages/Later", "Late H1": None}
        b.save_page("pages/Reading List.md", "# Other heading\n\n- Dune\n")
        assert page_titles(b)["pages/Reading List"] == "Reading List"
        assert fresh_import_differences(b) == {}


# ---- config.edn read as EDN --------------------------------------------------------------------

@pytest.mark.engine_free
def test_logseqs_default_config_is_read():
    """The config in the shape Logseq writes: ``:triple-lowbar``, the journal formats commented out
    (Logseq's defaults); uncommenting them sets them."""
    assert name_format(DEFAULT_CONFIG) == "triple-lowbar"
    assert formats(DEFAULT_CONFIG) == (journals.TITLE_FORMAT, journals.FILE_FORMAT)
    text = DEFAULT_CONFIG.replace(';; :journal/page-title-format "EEE do, MMM yyyy"', ':journal/page-title-format "EEE do, MMM yyyy"')
    text = text.replace(';; :journal/file-name-format "yyyy_MM_dd"', ':journal/file-name-format "yyyy-MM-dd"')
    assert formats(text) == ("EEE do, MMM yyyy", "yyyy-MM-dd")
    assert name_format(text.replace(" :file/name-format :triple-lowbar\n", "")) == "legacy"


@pytest.mark.engine_free
@pytest.mark.parametrize("text, want", [
    # a ';' inside a string before the setting is no comment (a line regex read none)
    ('{:a "b;c" :journal/page-title-format "dd.MM.yyyy"}', ("dd.MM.yyyy", "yyyy_MM_dd")),
    # EDN's discard, another key's map, a key inside a string: no setting (a line regex read one)
    ('{#_:journal/page-title-format #_"EEEE" :x 1}', ("MMM do, yyyy", "yyyy_MM_dd")),
    ('{:ui {:journal/page-title-format "EEEE"}}', ("MMM do, yyyy", "yyyy_MM_dd")),
    ('{:doc "\n:journal/file-name-format \\"yyyy\\"\n"}', ("MMM do, yyyy", "yyyy_MM_dd")),
    # the value on the next line, after a comment (a line regex read none)
    ('{:journal/page-title-format\n ;; how titles look\n "EEEE, dd.MM.yyyy"}', ("EEEE, dd.MM.yyyy", "yyyy_MM_dd")),
    # an escaped quote in the value: EDN's escapes read
    (r'{:journal/page-title-format "yyyy \"w\" dd"}', ('yyyy "w" dd', "yyyy_MM_dd")),
    (r'{:journal/page-title-format "\u0064d.MM"}', ("dd.MM", "yyyy_MM_dd")),
    # a value that is no string, an empty one: Logseq's default
    ('{:journal/page-title-format :x :journal/file-name-format ""}', ("MMM do, yyyy", "yyyy_MM_dd")),
    # a commented-out setting before the map (a key set twice: Logseq's reader refuses the map, test_logseq_old_folders.py)
    (';; :journal/page-title-format "EEEE"\n {:journal/page-title-format "dd.MM.yyyy"\n :x "yyyy"}', ("dd.MM.yyyy", "yyyy_MM_dd")),
])
def test_journal_formats_are_read_as_edn(text, want):
    assert formats(text) == want


@pytest.mark.engine_free
@pytest.mark.parametrize("text", [
    # (a regex literal #"…" or a reader conditional #?: no EDN, the config refused, test_logseq_old_folders.py)
    '{:x #inst "2026-01-01" :file/name-format :triple-lowbar}',  # a tagged literal is one form
    '{:x #{"a" "b"} :file/name-format :triple-lowbar}',
])
def test_reader_forms_before_a_setting_keep_keys_and_values_paired(text):
    assert name_format(text) == "triple-lowbar"
    assert formats(text.replace(":file/name-format :triple-lowbar", ':journal/file-name-format "yyyy-MM-dd"'))[1] == "yyyy-MM-dd"


# ---- a config saved with the same settings -----------------------------------------------------

def test_a_config_save_that_changes_no_setting_derives_nothing_again(tmp_path, db_path, monkeypatch):
    """An edit of ``config.edn`` that leaves the settings gbrain reads as they were (a comment, a
    setting gbrain does not read) parses no page and resolves no link again; one that changes a
    read setting does, and equals a fresh import."""
    graph = {**GRAPH, "pages/Old.Style.md": "- old\n", "pages/a%3Fb.md": "- q\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        calls: list[str] = []
        real_graph, real_rows = b.rederive_graph, b._resolve_rows
        monkeypatch.setattr(b, "rederive_graph", lambda *a, **k: calls.append("rederive") or real_graph(*a, **k))
        monkeypatch.setattr(b, "_resolve_rows", lambda *a, **k: calls.append("resolve") or real_rows(*a, **k))
        b.save_file("logseq/config.edn", (DEFAULT_CONFIG + ";; a note\n").encode())
        b.save_file("logseq/config.edn", DEFAULT_CONFIG.replace(":start-of-week 6", ":start-of-week 0").encode())
        assert calls == []
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DEFAULT_CONFIG.replace(":file/name-format :triple-lowbar", "").encode())
        assert "rederive" in calls and page_titles(b)["pages/Old.Style"] == "Old/Style"
        assert fresh_import_differences(b) == {}
        calls.clear()
        b.save_file("logseq/config.edn", b'{:journal/page-title-format "yyyy-MM-dd"}\n')  # the title format: links again
        assert "resolve" in calls
        assert fresh_import_differences(b) == {}


# ---- an upgraded brain -----------------------------------------------------------------------

def test_an_upgraded_brain_gets_file_names_and_edn_journal_formats(tmp_path, db_path, monkeypatch):
    """A brain made before (SQLite v73 / Postgres v78) titled a graph page by its opening H1 and
    read the journal formats with a line regex: on open the graph's ``pages/`` pages whose title is
    not their file's Logseq name are derived again, the links resolved again, and the journal
    links of a graph whose formats the EDN reading changes resolved again: equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    graph = {**GRAPH, "logseq/config.edn": DEFAULT_CONFIG.replace(
        ":hidden []", ':hidden [";; x"] :journal/page-title-format "dd.MM.yyyy"'),
        "journals/2026_11_30.md": "- [[28.11.2026]] and [[Nov 28th, 2026]]\n"}
    with Brain.open(db_path, create=True) as b:
        b.set_config("property_syntax", "logseq")  # no file names: the H1 titles, as the old page model gave
        monkeypatch.setattr(journals, "formats", dbmod._line_formats)  # the old reading: a ';' in a string hid the setting
        monkeypatch.setattr(journals, "graph_value", lambda text: journals.name_format(text))  # (and no title format before v74)
        import_tree(b, write_tree(tmp_path / "g", graph))
        c = b.conn
        with b.transaction():
            c.execute("DELETE FROM config WHERE key = 'property_syntax'")
            _rewind(c, pg._logseq_file_names, dbmod._m73_logseq_file_names)
        assert page_titles(b)["pages/Reading List"] == "Books I want"
        assert link_targets(b, "journals/2026_11_30") == {"28.11.2026": None, "Nov 28th, 2026": "journals/2026_11_28"}
    monkeypatch.undo()
    with Brain.open(db_path) as b:
        assert page_titles(b)["pages/Reading List"] == "Reading List"
        assert link_targets(b, "journals/2026_11_28")["Reading List"] == "pages/Reading List"
        # (the journal keeps the title Logseq's default format gives: titles follow the defaults)
        assert link_targets(b, "journals/2026_11_30") == {"28.11.2026": "journals/2026_11_28", "Nov 28th, 2026": "journals/2026_11_28"}
        assert fresh_import_differences(b) == {}


# ---- review (session 51): reader forms, a journal's H1, the upgrade under property_syntax logseq --

@pytest.mark.engine_free
@pytest.mark.parametrize("text", [
    r'{:x \u0041 :file/name-format :triple-lowbar}',  # a character literal is one token: \u0041, \o101
    r'{:x \o101 :file/name-format :triple-lowbar}',
    r'{:x [\a \newline \space] :file/name-format :triple-lowbar}',
    '#_{:file/name-format :legacy}\n{:file/name-format :triple-lowbar}',  # a discarded map is not the config's
    '#_ #_ {:a 1} {:b 2} {:file/name-format :triple-lowbar}',  # (an unclosed one is refused: test_logseq_old_folders.py)
])
def test_odd_reader_forms_keep_the_settings(text):
    assert name_format(text) == "triple-lowbar"


@pytest.mark.engine_free
def test_a_journal_is_named_by_its_day_before_an_opening_h1():
    """Logseq names ``journals/2026_11_28.md`` by its file (``get-page-name``: ``title::``, then
    the file name, then the first heading), which it reads as the day (``convert-page-if-journal``,
    logseq/logseq deps/graph-parser/src/logseq/graph_parser/block.cljs): an opening H1 is no title."""
    text = "# Meeting notes\n\n- agenda\n"
    assert parse_page(text, "journals/2026_11_28.md", property_syntax="logseq").title == "Nov 28th, 2026"
    assert parse_page(text, "g/journals/2026_11_28.md", property_syntax="logseq").title == "Nov 28th, 2026"
    assert parse_page("title:: Kickoff\n\n" + text, "journals/2026_11_28.md", property_syntax="logseq").title == "Kickoff"
    assert parse_page(text, "journals/2026_11_28.md", property_syntax="dataview").title == "Meeting notes"  # a vault's
    assert parse_page(text, "journals/notes.md", property_syntax="logseq").title == "Meeting notes"  # no day: as before


def test_a_graphs_journal_with_an_h1_is_found_by_its_day(tmp_path, db_path):
    graph = {**GRAPH, "journals/2026_11_27.md": "# Meeting notes\n\n- agenda\n",
             "pages/Plan.md": "- see [[Nov 27th, 2026]] and [[Meeting notes]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        assert page_titles(b)["journals/2026_11_27"] == "Nov 27th, 2026"
        assert link_targets(b, "pages/Plan") == {"Nov 27th, 2026": "journals/2026_11_27", "Meeting notes": None}
        b.save_page("journals/2026_11_26.md", "# Other meeting\n")
        assert page_titles(b)["journals/2026_11_26"] == "Nov 26th, 2026"
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("setting", ["logseq", "auto"])
def test_an_upgraded_brain_gets_journal_days_and_edn_formats(tmp_path, db_path, monkeypatch, setting):
    """A brain made before v73 / pg_v78: a journal titled by its opening H1 is titled by its day on
    open; under config ``property_syntax logseq`` too (every ``journals/`` page is a graph's
    there), and there the journal links of a graph whose formats the EDN reading changes are
    resolved again as well: equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.page import markdown
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    graph = {"logseq/config.edn": '{:hidden [";; x"] :journal/page-title-format "dd.MM.yyyy"}\n',
             "journals/2026_11_28.md": "# Meeting notes\n\n- agenda\n",
             "journals/2026_11_30.md": "- [[28.11.2026]] and [[Meeting notes]]\n"}
    with Brain.open(db_path, create=True) as b:
        if setting == "logseq":
            b.set_config("property_syntax", "logseq")
        monkeypatch.setattr(journals, "formats", dbmod._line_formats)  # the old reading: a ';' in a string hid the setting
        monkeypatch.setattr(markdown, "journal_name", lambda path, *a: None)  # the old page model: the H1 titled a journal
        import_tree(b, write_tree(tmp_path / "g", graph))
        with b.transaction():
            _rewind(b.conn, pg._logseq_file_names, dbmod._m73_logseq_file_names)
        assert page_titles(b)["journals/2026_11_28"] == "Meeting notes"
        assert link_targets(b, "journals/2026_11_30") == {"28.11.2026": None, "Meeting notes": "journals/2026_11_28"}
    monkeypatch.undo()
    with Brain.open(db_path) as b:
        # (the graph's title format under either: Logseq titles a journal by its graph's config, session 53)
        assert page_titles(b)["journals/2026_11_28"] == "28.11.2026"
        assert link_targets(b, "journals/2026_11_30") == {"28.11.2026": "journals/2026_11_28", "Meeting notes": None}
        assert fresh_import_differences(b) == {}


# ---- pages/contents.md is "Contents" (session 52) ---------------------------------------------

@pytest.mark.engine_free
def test_a_graphs_contents_page_is_named_contents():
    """Logseq names a graph's ``pages/contents.*`` ``Contents`` before reading its ``title::``, file
    name or heading (``get-page-name``, logseq/logseq deps/graph-parser/src/logseq/graph_parser/
    extract.cljc, tag 0.10.9: a path starting ``pages/contents.``); only right in the graph's
    ``pages/`` folder, and only that spelling of the file name."""
    from gbrain.page.markdown import page_property_syntax

    def title(path, text="# Table\n\n- [[A]]\n", graphs={"": "triple-lowbar", "g": "legacy"}, setting="auto"):
        return parse_page(text, path, property_syntax=page_property_syntax(path, setting, graphs)).title

    assert title("pages/contents.md") == "Contents"
    assert title("g/pages/contents.md") == "Contents"  # a graph in a folder, any name format
    assert title("pages/contents.md", "title:: Index\n\n- x\n") == "Contents"
    assert title("pages/contents.md", "---\ntitle: Fm\n---\n- x\n") == "Contents"
    assert title("pages/contents.v2.md") == "Contents"  # (the path starts "pages/contents.")
    assert title("pages/sub/contents.md") == "contents"  # not right in pages/
    assert title("pages/Contents.md") == "Contents" and title("pages/CONTENTS.md") == "CONTENTS"  # the file name
    assert title("x/pages/contents.md") == "Table"  # no graph there: a vault's note, its H1
    assert title("pages/contents.md", setting="logseq") == "Table"  # property_syntax logseq: no graph known, as before
    text = "- [[A]]\n"
    assert parse_page(text, "pages/contents.md", property_syntax="logseq:contents").render() == text


def test_a_graphs_contents_page_is_titled_contents_in_the_brain(tmp_path, db_path):
    graph = {"logseq/config.edn": DEFAULT_CONFIG, "pages/contents.md": "- [[Reading List]]\n",
             "pages/Reading List.md": "- x\n", "vault/contents.md": "- y\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        t = page_titles(b)
        assert t["pages/contents"] == "Contents" and t["vault/contents"] == "contents"
        assert fresh_import_differences(b) == {}
        b.delete_file("logseq/config.edn")  # no graph: a vault's note, named by its file
        assert page_titles(b)["pages/contents"] == "contents"
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DEFAULT_CONFIG.replace(":file/name-format :triple-lowbar", "").encode())
        assert page_titles(b)["pages/contents"] == "Contents"
        b.save_page("pages/contents.md", "title:: Index\n\n- [[Reading List]]\n")
        assert page_titles(b)["pages/contents"] == "Contents"
        assert fresh_import_differences(b) == {}


def test_an_upgraded_brain_names_a_graphs_contents_page_contents(tmp_path, db_path, monkeypatch):
    """A brain made before SQLite v74 / Postgres v79 titled a graph's ``pages/contents.md``
    ``contents``: on open it is ``Contents``, equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.page import markdown
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    graph = {"logseq/config.edn": DEFAULT_CONFIG, "pages/contents.md": "- [[Reading List]]\n",
             "pages/Reading List.md": "- x\n"}
    with Brain.open(db_path, create=True) as b:
        monkeypatch.setattr(markdown, "LOGSEQ_CONTENTS", "contents")  # the old page model: its file name
        import_tree(b, write_tree(tmp_path / "g", graph))
        with b.transaction():
            _rewind(b.conn, pg._logseq_contents, dbmod._m74_logseq_contents)
        assert page_titles(b)["pages/contents"] == "contents"
    monkeypatch.undo()
    with Brain.open(db_path) as b:
        assert page_titles(b)["pages/contents"] == "Contents"
        assert fresh_import_differences(b) == {}


# ---- a journal's title in the config's title format (session 52) ------------------------------

@pytest.mark.engine_free
@pytest.mark.parametrize("name, config, want", [
    ("2026_11_28", "{}", "Nov 28th, 2026"),
    ("2026_11_28", '{:journal/page-title-format "yyyy-MM-dd"}', "2026-11-28"),
    ("2026_11_28", '{:journal/page-title-format "EEEE, dd.MM.yyyy"}', "Saturday, 28.11.2026"),
    # Logseq reads a journal's file name by the title format, then "MMM do, yyyy", "yyyy-MM-dd",
    # "yyyy_MM_dd" (safe-journal-title-formatters), whatever :journal/file-name-format says
    ("2026-11-28", "{}", "Nov 28th, 2026"),
    ("2026-11-28", '{:journal/file-name-format "yyyy-MM-dd"}', "Nov 28th, 2026"),
    ("2026_11_28", '{:journal/file-name-format "yyyy-MM-dd"}', "Nov 28th, 2026"),
    ("28.11.2026", '{:journal/page-title-format "dd.MM.yyyy"}', "28.11.2026"),
    ("20261128", '{:journal/file-name-format "yyyyMMdd"}', "Nov 28th, 2026"),  # (gbrain: its file-name format too)
    ("notes", '{:journal/page-title-format "yyyy-MM-dd"}', None),
])
def test_a_journal_is_titled_in_its_graphs_title_format(name, config, want):
    """Logseq titles a journal by ``convert-page-if-journal`` (logseq/logseq
    deps/graph-parser/src/logseq/graph_parser/block.cljs, tag 0.10.9): its file's name read as a
    day by ``safe-journal-title-formatters`` (date_time_util.cljs), written in the config's
    ``:journal/page-title-format``."""
    from gbrain.page.links import _config_text  # noqa: F401 (the reader the brain uses)
    from gbrain.page.markdown import page_property_syntax

    syntax = page_property_syntax(f"journals/{name}.md", "auto", {"": journals.graph_value(config)})
    page = parse_page("# Meeting notes\n\n- agenda\n", f"journals/{name}.md", property_syntax=syntax)
    assert page.title == (want or "Meeting notes")
    st = journals.settings(config)
    assert journals.journal_title(name, st.title_format, st.file_format) == want  # what links find


@pytest.mark.engine_free
def test_journal_formats_are_joined_and_split_back_by_one_pair():
    """A graph's value (:func:`journals.graph_value`) and a journal's page syntax carry the
    journal formats as ``HEAD\\x1fTITLE\\x1fFILE``, written by ``join_formats`` alone and read by
    ``split_formats`` alone (markdown.page_property_syntax, journal_name)."""
    from gbrain.page.markdown import journal_name, page_property_syntax

    days = ("dd.MM.yyyy", "yyyy_MM_dd")
    assert journals.join_formats("logseq", None) == "logseq"
    assert journals.split_formats(journals.join_formats("triple-lowbar", days)) == ("triple-lowbar", days)
    assert journals.split_formats("legacy") == ("legacy", None)
    value = journals.graph_value('{:journal/page-title-format "dd.MM.yyyy"}')
    syntax = page_property_syntax("journals/2026_11_28.md", "auto", {"": value})
    assert journals.split_formats(syntax) == ("logseq", days) and syntax == journals.join_formats("logseq", days)
    assert journal_name("journals/2026_11_28.md", syntax) == "28.11.2026"
    assert journal_name("journals/2026_11_28.md", "logseq") == "Nov 28th, 2026"


def test_a_journals_title_follows_its_configs_title_format(tmp_path, db_path):
    graph = {"logseq/config.edn": DEFAULT_CONFIG.replace(':hidden []', ':hidden [] :journal/page-title-format "yyyy-MM-dd"'),
             "journals/2026_11_28.md": "# Meeting notes\n\n- agenda\n",
             "journals/2026-11-27.md": "- [[2026-11-28]]\n",
             "pages/Plan.md": "- [[2026-11-27]] and [[Nov 28th, 2026]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        t = page_titles(b)
        assert t["journals/2026_11_28"] == "2026-11-28" and t["journals/2026-11-27"] == "2026-11-27"
        # (Logseq reads a link's name as a day by the same formats: [[Nov 28th, 2026]] is that journal)
        assert link_targets(b, "pages/Plan") == {"2026-11-27": "journals/2026-11-27", "Nov 28th, 2026": "journals/2026_11_28"}
        assert link_targets(b, "journals/2026-11-27") == {"2026-11-28": "journals/2026_11_28"}
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DEFAULT_CONFIG.encode())  # the default title format again
        t = page_titles(b)
        assert t["journals/2026_11_28"] == "Nov 28th, 2026" and t["journals/2026-11-27"] == "Nov 27th, 2026"
        assert link_targets(b, "pages/Plan") == {"2026-11-27": "journals/2026-11-27", "Nov 28th, 2026": "journals/2026_11_28"}
        assert fresh_import_differences(b) == {}
        b.save_page("journals/2026_11_26.md", "# Other\n")
        assert page_titles(b)["journals/2026_11_26"] == "Nov 26th, 2026"
        assert fresh_import_differences(b) == {}


def test_an_upgraded_brain_titles_journals_in_the_configs_format(tmp_path, db_path, monkeypatch):
    """A brain made before SQLite v74 / Postgres v79 titled a graph's journals in Logseq's default
    title format, and a ``journals/2026-11-28.md`` under the default file-name format by its H1:
    on open they are titled as the config says, equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    graph = {"logseq/config.edn": '{:journal/page-title-format "dd.MM.yyyy"}\n',
             "journals/2026_11_28.md": "- agenda\n", "journals/2026-11-29.md": "# Meeting notes\n",
             "pages/Plan.md": "- [[28.11.2026]] [[29.11.2026]] [[Meeting notes]]\n"}
    with Brain.open(db_path, create=True) as b:
        monkeypatch.setattr(journals, "graph_value", lambda text: journals.name_format(text))  # the old model: defaults only
        monkeypatch.setattr(journals, "DAY_FORMATS", ())
        import_tree(b, write_tree(tmp_path / "g", graph))
        with b.transaction():
            _rewind(b.conn, pg._logseq_contents, dbmod._m74_logseq_contents)
        assert page_titles(b)["journals/2026_11_28"] == "Nov 28th, 2026"
        assert page_titles(b)["journals/2026-11-29"] == "Meeting notes"
    monkeypatch.undo()
    with Brain.open(db_path) as b:
        t = page_titles(b)
        assert t["journals/2026_11_28"] == "28.11.2026" and t["journals/2026-11-29"] == "29.11.2026"
        assert link_targets(b, "pages/Plan") == {"28.11.2026": "journals/2026_11_28", "29.11.2026": "journals/2026-11-29",
                                        "Meeting notes": None}
        assert fresh_import_differences(b) == {}


def test_a_vault_without_a_graph_config_keeps_its_journals_titles_and_links(tmp_path, db_path):
    """(review of session 52) A vault with ``journals/`` or daily notes but no ``logseq/config.edn``
    is no Logseq graph: its journals keep their H1 / file-name titles, a link by Logseq's day names
    finds nothing, and saving a journal in any of Logseq's day formats changes neither."""
    vault = {".obsidian/app.json": "{}", "journals/2026-11-28.md": "# Sat\n", "daily/2026_11_29.md": "x\n",
             "hub.md": "[[Nov 28th, 2026]] [[2026-11-28]] [[2026_11_29]] [[Nov 29th, 2026]] [[Nov 30th, 2026]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "v", vault))
        want = {"Nov 28th, 2026": None, "2026-11-28": "journals/2026-11-28", "2026_11_29": "daily/2026_11_29",
                "Nov 29th, 2026": None, "Nov 30th, 2026": None}
        assert link_targets(b, "hub") == want
        b.save_page("journals/2026-11-30.md", "y\n")
        b.save_page("journals/2026_11_29.md", "z\n")
        t = page_titles(b)
        assert (t["journals/2026-11-28"], t["journals/2026-11-30"], t["journals/2026_11_29"]) == ("Sat", "2026-11-30", "2026_11_29")
        assert link_targets(b, "hub") == want
        assert fresh_import_differences(b) == {}


def test_a_title_format_edited_and_back_beside_a_page_named_as_a_day(tmp_path, db_path):
    """(review of session 52) A graph's title format changed and changed back, with a
    ``pages/2026-11-28.md`` beside the journal of that day coming and going: each step's titles
    and links equal a fresh import's."""
    dated = DEFAULT_CONFIG.replace(':hidden []', ':hidden [] :journal/page-title-format "yyyy-MM-dd"')
    graph = {"logseq/config.edn": DEFAULT_CONFIG, "journals/2026_11_28.md": "- day\n",
             "pages/Plan.md": "- [[2026-11-28]] [[Nov 28th, 2026]] [[2026-11-29]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        assert link_targets(b, "pages/Plan") == {"2026-11-28": "journals/2026_11_28", "Nov 28th, 2026": "journals/2026_11_28", "2026-11-29": None}
        b.save_page("pages/2026-11-28.md", "- literal\n")
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", dated.encode())
        assert page_titles(b)["journals/2026_11_28"] == "2026-11-28"
        assert fresh_import_differences(b) == {}
        b.save_page("journals/2026-11-29.md", "- new\n")
        assert link_targets(b, "pages/Plan")["2026-11-29"] == "journals/2026-11-29"
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DEFAULT_CONFIG.encode())
        t = page_titles(b)
        assert (t["journals/2026_11_28"], t["journals/2026-11-29"]) == ("Nov 28th, 2026", "Nov 29th, 2026")
        assert fresh_import_differences(b) == {}
        b.delete_page("pages/2026-11-28")
        assert link_targets(b, "pages/Plan") == {"2026-11-28": "journals/2026_11_28", "Nov 28th, 2026": "journals/2026_11_28",
                                        "2026-11-29": "journals/2026-11-29"}
        assert fresh_import_differences(b) == {}
