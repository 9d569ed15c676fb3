"""Pages Logseq reads as journals by their name, and the days Logseq reads (session 53).

Logseq (file graphs, logseq/logseq tag 0.10.9, unchanged to 0.10.15) calls ``convert-page-if-journal``
(deps/graph-parser/src/logseq/graph_parser/block.cljs) on every page's name in
``extract-pages-and-blocks`` (extract.cljc): the name ``get-page-name`` gives (``title::``, else the
file name, whatever the folder) lower-cased, each word capitalized, parsed by
``safe-journal-title-formatters`` (date_time_util.cljs: the graph's ``:journal/page-title-format``,
``MMM do, yyyy``, ``yyyy-MM-dd``, ``yyyy_MM_dd``; never ``:journal/file-name-format``) with cljs-time's
parser (logseq/cljs-time 5704fbf src/cljs_time/internal/parse.cljs), which is lenient: one-digit
months and days, any ordinal suffix, a month's full name for ``MMM``. A name read as a day is
written in the title format and the page is ``journal? true``: ``pages/2026-11-20.md`` is *Nov 20th,
2026*, and a link's name is read the same way (``[[2026-2-3]]`` is *Feb 3rd, 2026*).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.page import journals
from gbrain.page.markdown import page_property_syntax, parse_page
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import link_targets, page_titles, write_tree

DEFAULT_CONFIG = (Path(__file__).parent / "data" / "logseq" / "config.edn").read_text(encoding="utf-8")
DASHED = DEFAULT_CONFIG.replace(":hidden []", ':hidden [] :journal/page-title-format "yyyy-MM-dd"')
#: the configs the parametrized tests name (short test ids)
CONFIGS = {"default": DEFAULT_CONFIG, "dashed": DASHED,
           "yyyyMMdd-files": DEFAULT_CONFIG.replace(":hidden []", ':hidden [] :journal/file-name-format "yyyyMMdd"')}



# ---- the days Logseq reads: cljs-time's parser ------------------------------------------------

@pytest.mark.engine_free
@pytest.mark.parametrize("name, title_format, want", [
    ("2026-11-20", journals.TITLE_FORMAT, dt.date(2026, 11, 20)),
    ("2026-2-03", journals.TITLE_FORMAT, dt.date(2026, 2, 3)),  # MM takes one or two digits
    ("2026-02-3", journals.TITLE_FORMAT, dt.date(2026, 2, 3)),  # dd too (fewer than 2: what there is)
    ("2026_2_3", journals.TITLE_FORMAT, dt.date(2026, 2, 3)),
    ("Nov 1th, 2026", journals.TITLE_FORMAT, dt.date(2026, 11, 1)),  # any of st nd rd th
    ("nov 28th, 2026", journals.TITLE_FORMAT, dt.date(2026, 11, 28)),  # capitalize-all
    ("NOV 28TH, 2026", journals.TITLE_FORMAT, dt.date(2026, 11, 28)),
    ("November 28th, 2026", journals.TITLE_FORMAT, dt.date(2026, 11, 28)),  # MMM: full names first
    ("Nov 01st, 2026", journals.TITLE_FORMAT, dt.date(2026, 11, 1)),
    ("26-11-20", journals.TITLE_FORMAT, dt.date(2026, 11, 20)),  # yyyy: up to 4 digits, two-digit pivot
    ("Monday, 28.11.2026", "EEEE, dd.MM.yyyy", dt.date(2026, 11, 28)),  # the day name is not checked
    ("28-11-2026", "dd.MM.yyyy", dt.date(2026, 11, 28)),  # a punctuation run is a regex: '.' any character
    # no day
    ("2026-11-20 notes", journals.TITLE_FORMAT, None),  # the whole name
    ("Nov 28, 2026", journals.TITLE_FORMAT, None),  # no ordinal suffix
    ("Sept 28th, 2026", journals.TITLE_FORMAT, None),
    ("2026-02-30", journals.TITLE_FORMAT, None),
    ("2026-13-01", journals.TITLE_FORMAT, None),
    ("2026-11-201", journals.TITLE_FORMAT, None),
    ("20261120", journals.TITLE_FORMAT, None),  # (no format of the four reads it)
    ("2026/11/20", journals.TITLE_FORMAT, None),
    ("Nov 28th 2026", journals.TITLE_FORMAT, None),
    ("notes", journals.TITLE_FORMAT, None),
])
def test_a_name_is_a_day_as_logseq_reads_it(name, title_format, want):
    assert journals.logseq_day(name, title_format) == want


@pytest.mark.engine_free
@pytest.mark.parametrize("title_format", [journals.TITLE_FORMAT, "yyyy-MM-dd", "EEEE, dd.MM.yyyy", "do MMMM yyyy"])
def test_each_spelling_of_a_day_reads_as_that_day(title_format):
    """What a journal's coming re-resolves (``day_spellings``) is read back as the day."""
    for day in (dt.date(2026, 2, 3), dt.date(2026, 11, 28), dt.date(1999, 1, 1)):
        names = journals.day_spellings(day, title_format)
        assert journals.format_day(day, title_format) in names
        assert {journals.logseq_day(n, title_format) for n in names} == {day}


# ---- a graph's pages/ page named as a day is a journal ----------------------------------------

@pytest.mark.engine_free
@pytest.mark.parametrize("path, config, want", [
    ("pages/2026-11-20.md", "default", "Nov 20th, 2026"),
    ("pages/2026_11_20.md", "default", "Nov 20th, 2026"),
    ("pages/Nov 1th, 2026.md", "default", "Nov 1st, 2026"),
    ("pages/2026-11-20.md", "dashed", "2026-11-20"),
    ("pages/Nov 20th, 2026.md", "dashed", "2026-11-20"),
    ("journals/2026-2-03.md", "default", "Feb 3rd, 2026"),
    # the file-name format names the files Logseq writes; its parser never reads it
    ("pages/20261120.md", "yyyyMMdd-files", "20261120"),
    ("pages/2026-11-20 notes.md", "default", "2026-11-20 notes"),
])
def test_a_graph_page_named_as_a_day_is_titled_as_the_day(path, config, want):
    syntax = page_property_syntax(path, "auto", {"": journals.graph_value(CONFIGS[config])})
    assert parse_page("- x\n", path, property_syntax=syntax).title == want


@pytest.mark.engine_free
def test_a_title_property_read_as_a_day_is_the_day():
    syntax = page_property_syntax("pages/foo.md", "auto", {"": journals.graph_value(DEFAULT_CONFIG)})
    assert parse_page("title:: 2026-11-20\n\n- x\n", "pages/foo.md", property_syntax=syntax).title == "Nov 20th, 2026"
    assert parse_page("title:: Foo\n\n- x\n", "pages/2026-11-20.md", property_syntax=syntax).title == "Foo"


@pytest.mark.engine_free
@pytest.mark.parametrize("path, syntax", [("2026-11-20.md", "auto"), ("pages/2026-11-20.md", "dataview"),
                                          ("daily/2026-11-20.md", "auto")])
def test_an_obsidian_vaults_note_named_as_a_day_keeps_its_title(path, syntax):
    assert parse_page("- x\n", path, property_syntax=syntax).title == "2026-11-20"


def test_an_obsidian_vault_keeps_its_day_notes_titles_and_links(tmp_path, db_path):
    vault = {".obsidian/app.json": "{}", "2026-11-20.md": "x\n", "pages/2026-11-21.md": "y\n",
             "hub.md": "[[2026-11-20]] [[Nov 20th, 2026]] [[2026_11_21]] [[2026-11-2]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "v", vault))
        t = page_titles(b)
        assert (t["2026-11-20"], t["pages/2026-11-21"]) == ("2026-11-20", "2026-11-21")
        # (2026_11_21 finds pages/2026-11-21 by its file name's key, as any note: no day read)
        assert link_targets(b, "hub") == {"2026-11-20": "2026-11-20", "Nov 20th, 2026": None, "2026_11_21": "pages/2026-11-21", "2026-11-2": None}
        assert fresh_import_differences(b) == {}


GRAPH = {"logseq/config.edn": DEFAULT_CONFIG,
         "pages/2026-11-20.md": "- a page named as a day\n",
         "journals/2026_11_01.md": "- a journal\n",
         "pages/Plan.md": "- [[2026_11_20]] [[Nov 20th, 2026]] [[2026-11-1]] [[Nov 1th, 2026]] "
                          "[[2026-2-3]] [[Feb 3rd, 2026]]\n"}


def test_a_graph_page_named_as_a_day_is_a_journal_in_the_brain(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", GRAPH))
        assert page_titles(b)["pages/2026-11-20"] == "Nov 20th, 2026"
        want = {"2026_11_20": "pages/2026-11-20", "Nov 20th, 2026": "pages/2026-11-20",
                "2026-11-1": "journals/2026_11_01", "Nov 1th, 2026": "journals/2026_11_01", "2026-2-3": None, "Feb 3rd, 2026": None}
        assert link_targets(b, "pages/Plan") == want
        assert fresh_import_differences(b) == {}
        # a journal coming finds every spelling of its day written before it
        b.save_page("journals/2026_02_03.md", "- new\n")
        assert link_targets(b, "pages/Plan")["2026-2-3"] == "journals/2026_02_03"
        assert link_targets(b, "pages/Plan")["Feb 3rd, 2026"] == "journals/2026_02_03"
        assert fresh_import_differences(b) == {}
        # a page named as a day coming under pages/ too
        b.delete_page("journals/2026_02_03")
        b.save_page("pages/2026-02-03.md", "- as a page\n")
        assert page_titles(b)["pages/2026-02-03"] == "Feb 3rd, 2026"
        assert link_targets(b, "pages/Plan")["2026-2-3"] == "pages/2026-02-03"
        assert fresh_import_differences(b) == {}
        # a title:: that is no day: no journal (Logseq names the page by it)
        b.save_page("pages/2026-11-20.md", "title:: Launch\n\n- x\n")
        assert page_titles(b)["pages/2026-11-20"] == "Launch"
        assert link_targets(b, "pages/Plan")["Nov 20th, 2026"] is None
        assert fresh_import_differences(b) == {}
        b.save_page("pages/2026-11-20.md", "- back\n")
        assert link_targets(b, "pages/Plan")["Nov 20th, 2026"] == "pages/2026-11-20"
        # moved out of the graph: a vault's note, its file name its title
        b.move_page("pages/2026-11-20", "notes/2026-11-20")
        assert page_titles(b)["notes/2026-11-20"] == "2026-11-20"
        assert link_targets(b, "pages/Plan")["Nov 20th, 2026"] is None
        assert fresh_import_differences(b) == {}


def test_a_title_format_edit_titles_pages_named_as_a_day_again(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", GRAPH))
        b.save_file("logseq/config.edn", DASHED.encode())
        t = page_titles(b)
        assert (t["pages/2026-11-20"], t["journals/2026_11_01"]) == ("2026-11-20", "2026-11-01")
        assert link_targets(b, "pages/Plan")["Nov 20th, 2026"] == "pages/2026-11-20"
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DEFAULT_CONFIG.encode())
        assert page_titles(b)["pages/2026-11-20"] == "Nov 20th, 2026"
        assert fresh_import_differences(b) == {}
        b.delete_file("logseq/config.edn")  # no graph: a vault's pages/ folder
        assert page_titles(b)["pages/2026-11-20"] == "2026-11-20"
        assert link_targets(b, "pages/Plan")["Nov 20th, 2026"] is None
        assert fresh_import_differences(b) == {}


# ---- property_syntax logseq: a journal's title format is its graph's --------------------------

def test_under_property_syntax_logseq_a_journal_follows_its_graphs_title_format(tmp_path, db_path):
    graph = {"logseq/config.edn": DASHED, "journals/2026_11_28.md": "- day\n", "pages/Plan.md": "- [[2026-11-28]] [[Nov 28th, 2026]]\n"}
    with Brain.open(db_path, create=True) as b:
        b.set_config("property_syntax", "logseq")
        import_tree(b, write_tree(tmp_path / "g", graph))
        assert page_titles(b)["journals/2026_11_28"] == "2026-11-28"
        assert link_targets(b, "pages/Plan") == {"2026-11-28": "journals/2026_11_28", "Nov 28th, 2026": "journals/2026_11_28"}
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DEFAULT_CONFIG.encode())
        assert page_titles(b)["journals/2026_11_28"] == "Nov 28th, 2026"
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DASHED.encode())
        assert page_titles(b)["journals/2026_11_28"] == "2026-11-28"
        assert fresh_import_differences(b) == {}
        b.delete_file("logseq/config.edn")  # Logseq's defaults
        assert page_titles(b)["journals/2026_11_28"] == "Nov 28th, 2026"
        assert fresh_import_differences(b) == {}


# ---- the upgrade (SQLite v75 / Postgres v80) --------------------------------------------------

@pytest.mark.parametrize("setting", ["auto", "logseq"])
def test_an_upgraded_brain_reads_days_as_logseq_does(tmp_path, db_path, setting):
    """A brain made before v75 / pg_v80 titled ``pages/2026-11-20.md`` ``2026-11-20``, a
    ``journals/2026-2-03.md`` by its file name, and (under ``logseq``) a journal in Logseq's default
    title format, and links by a lenient day dangled: on open they are read as Logseq reads them,
    equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.page.slugs import title_key
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    config = DEFAULT_CONFIG if setting == "auto" else DASHED
    graph = {**GRAPH, "logseq/config.edn": config, "journals/2026-2-03.md": "- lenient file name\n", "journals/2026_11_28.md": "- day\n"}
    old = {"pages/2026-11-20": "2026-11-20", "journals/2026-2-03": "2026-2-03"}
    if setting == "logseq":  # (the old model: Logseq's default title format under ``logseq``)
        old.update({"journals/2026_11_28": "Nov 28th, 2026", "journals/2026_11_01": "Nov 1st, 2026"})
    with Brain.open(db_path, create=True) as b:
        if setting == "logseq":
            b.set_config("property_syntax", "logseq")
        import_tree(b, write_tree(tmp_path / "g", graph))
        new = page_titles(b)
        c = b.conn
        with b.transaction():  # the state the old page model left
            for slug, title in old.items():
                c.execute("UPDATE pages SET title = ?, title_key = ? WHERE slug = ?", (title, title_key(title), slug))
            c.execute("UPDATE links SET to_page_id = NULL WHERE target IN ('Nov 20th, 2026', "
                      "'2026-11-1', 'Nov 1th, 2026', '2026-2-3', 'Feb 3rd, 2026')")
            _rewind(c, pg._logseq_days, dbmod._m75_logseq_days)
    with Brain.open(db_path) as b:
        assert page_titles(b) == new
        assert new["journals/2026-2-03"] == ("Feb 3rd, 2026" if setting == "auto" else "2026-02-03")
        assert new["pages/2026-11-20"] == ("Nov 20th, 2026" if setting == "auto" else "2026-11-20")
        assert new["journals/2026_11_28"] == ("Nov 28th, 2026" if setting == "auto" else "2026-11-28")
        plan = link_targets(b, "pages/Plan")
        assert plan["2026-2-3"] == "journals/2026-2-03" and plan["2026-11-1"] == "journals/2026_11_01"
        assert plan["Nov 1th, 2026"] == "journals/2026_11_01"
        assert plan["Nov 20th, 2026"] == ("pages/2026-11-20" if setting == "auto" else None)
        assert fresh_import_differences(b) == {}


# ---- the journals are read once per write, not once per link ----------------------------------

def test_a_save_or_move_reads_the_journals_once_not_per_day_link(tmp_path, db_path, monkeypatch):
    """A page with many dangling links naming days (``[[2030-01-02]]``…): its save and its move
    resolve each against the graph's journals (``links.journal_keys``), read once per write, not
    once per link (each read goes over every ``pages``/``journals`` page of the graph:
    ``benchmarks/journal_links.py``), and the links resolve as a fresh import's."""
    from gbrain.page import links

    loads = []
    orig = links.JournalIndex.__init__

    def counting(self, days, formats=(), load=None):
        orig(self, days, formats, (lambda: loads.append(1) or load()) if load else None)

    monkeypatch.setattr(links.JournalIndex, "__init__", counting)
    body = "".join(f"- [[2030-01-{d:02d}]] [[Jan {d}th, 2030]]\n" for d in range(4, 20)) + "- [[2026-11-1]]\n"
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", GRAPH))
        for step in (lambda: b.save_page("pages/Days.md", body), lambda: b.save_page("pages/Days.md", body + "- more\n"),
                     lambda: b.move_page("pages/Days", "pages/Days2")):
            loads.clear()
            step()
            assert len(loads) <= 2, len(loads)  # (a move: the page's own rows, then the links again)
        assert link_targets(b, "pages/Days2")["2026-11-1"] == "journals/2026_11_01"
        assert link_targets(b, "pages/Days2")["2030-01-04"] is None
        assert fresh_import_differences(b) == {}


def test_lint_reads_the_journals_once_for_all_dead_links(tmp_path, db_path, monkeypatch):
    """lint's dead_links resolves a moved page's dangling relative links from where the page was
    (``Moves.destination``): one page index for the whole check, so the graph's journals are read
    once a pass, not once per dead link (9 reads for these 8 links before)."""
    from gbrain.core.lint import lint
    from gbrain.page import links

    loads = []
    orig = links.JournalIndex.__init__

    def counting(self, days, formats=(), load=None):
        orig(self, days, formats, (lambda: loads.append(1) or load()) if load else None)

    monkeypatch.setattr(links.JournalIndex, "__init__", counting)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", GRAPH))
        body = "".join(f"- [d](2030-01-{d:02d}.md)\n" for d in range(4, 12))
        b.save_page("a/p.md", body)
        b.move_page("a/p", "b/p")
        loads.clear()
        found = lint(b, checks=["dead_links"], limit=None)["items"]
        assert sum(1 for f in found if f["slug"] == "b/p") == 8
        assert len(loads) <= 2, len(loads)  # (lint's fix plan, plan_link_fixes, reads them once too)
