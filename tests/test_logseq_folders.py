"""A Logseq graph's own folder and title-format settings, and two files naming one day (session 54).

What Logseq (file graphs, logseq/logseq tag 0.10.9) does:

* ``:pages-directory`` / ``:journals-directory`` (src/main/frontend/state.cljs
  ``get-pages-directory``/``get-journals-directory``, default ``pages``/``journals``) name the
  folders Logseq writes new pages and journals into (handler/repo.cljs, handler/editor.cljs). Its
  graph parser reads every file of the graph whatever its folder (deps/common graph.cljs
  ``get-files``) and names it by ``title::``, else its file name (extract.cljc ``get-page-name``):
  ``daily/2026_11_20.md`` is the journal *Nov 20th, 2026* because its name reads as a day
  (``convert-page-if-journal``), ``notes/Project___Alpha.md`` is *Project/Alpha*.
* ``:date-formatter`` is the older name of ``:journal/page-title-format``, read "for
  compatibility" when that is unset (deps/graph-parser config.cljs ``get-date-formatter``:
  ``(or (:journal/page-title-format config) (:date-formatter config) "MMM do, yyyy")``).
* Two files whose names are one page (``journals/2026_11_20.md`` and ``pages/2026-11-20.md``,
  both *Nov 20th, 2026*): a graph's load parses the files sorted by path, every path holding
  ``journals/`` first (newest first), then ``contents.``/``.edn``/``custom.css``, then the rest
  (graph_parser.cljs ``filter-files``); the first file of a page name is the page, a later one is
  skipped with the warning *The file "pages/2026-11-20.md" will be skipped because another file
  "journals/2026_11_20.md" has the same page title.* (handler/repo.cljs
  ``parse-files-and-create-default-files-inner!``). Every link to the day opens the journal's file.

gbrain reads both (SQLite v76 / Postgres v83 re-derive the brains stored before: the upgrade
tests below). gbrain keeps both files of one day as pages (nothing is dropped) and
resolves each link to one of them deterministically: docs/migrating.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import brain_at_version, link_targets, page_titles, version_before, write_tree

DEFAULT_CONFIG = (Path(__file__).parent / "data" / "logseq" / "config.edn").read_text(encoding="utf-8")
DIRS = DEFAULT_CONFIG.replace(":hidden []", ':hidden [] :pages-directory "notes" :journals-directory "daily"')
LEGACY_FORMAT = DEFAULT_CONFIG.replace(":hidden []", ':hidden [] :date-formatter "yyyy-MM-dd"')


def test_a_graphs_own_pages_and_journals_folders_are_read_as_its(tmp_path, db_path):
    graph = {"logseq/config.edn": DIRS,
             "daily/2026_11_20.md": "- a day\n",
             "notes/Project___Alpha.md": "- a namespaced page\n",
             "notes/Plan.md": "tags:: launch\n\n- [[Nov 20th, 2026]] [[2026-11-20]] [[Project/Alpha]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        t = page_titles(b)
        assert (t["daily/2026_11_20"], t["notes/Project___Alpha"]) == ("Nov 20th, 2026", "Project/Alpha")
        assert link_targets(b, "notes/Plan") == {"Nov 20th, 2026": "daily/2026_11_20", "2026-11-20": "daily/2026_11_20",
                                                 "Project/Alpha": "notes/Project___Alpha", "launch": None}
        assert fresh_import_differences(b) == {}


DIRS_GRAPH = {"logseq/config.edn": DIRS,
              "daily/2026_11_20.md": "- a day\n",
              "notes/Project___Alpha.md": "- a namespaced page\n",
              "notes/Plan.md": "tags:: launch\n\n- [[Nov 20th, 2026]] [[2026-11-20]] [[Project/Alpha]] [[Nov 21st, 2026]]\n",
              "journals/2026_11_21.md": "title:: Old\n\n- Logseq's default folder, still this graph's\n",
              "pages/Old___Page.md": "- [[Project/Alpha]]\n",
              "daily/sub/2026_11_22.md": "- below the journals folder: no journal, as journals/sub/ is none\n"}


def _dirs_state(b) -> tuple:
    t = page_titles(b)
    return (t["daily/2026_11_20"], t["notes/Project___Alpha"], t["journals/2026_11_21"], t["pages/Old___Page"],
            link_targets(b, "notes/Plan"), t["daily/sub/2026_11_22"])


#: a fresh import of DIRS_GRAPH: daily/ and notes/ are the graph's, and so are Logseq's default journals/
#: and pages/ (since v78: Logseq reads every file of the graph; tests/test_logseq_old_folders.py)
DIRS_STATE = ("Nov 20th, 2026", "Project/Alpha", "Old", "Old/Page",
              {"Nov 20th, 2026": "daily/2026_11_20", "2026-11-20": "daily/2026_11_20", "Project/Alpha": "notes/Project___Alpha",
               "launch": None, "Nov 21st, 2026": None}, "2026_11_22")
#: the same tree with Logseq's default folders
DEFAULT_DIRS_STATE = ("2026_11_20", "Project___Alpha", "Old", "Old/Page",
                      {"Nov 20th, 2026": None, "2026-11-20": "daily/2026_11_20", "Project/Alpha": None, "Nov 21st, 2026": None},
                      "2026_11_22")


def test_the_graphs_folders_follow_each_edit_of_its_config(tmp_path, db_path):
    """Pages saved before the config, then the folders set, moved back to Logseq's and set again,
    then the config deleted: every state equal to a fresh import of the tree."""
    with Brain.open(db_path, create=True) as b:
        for path, text in DIRS_GRAPH.items():
            if path.endswith(".md"):
                b.save_page(path, text)
        b.save_file("logseq/config.edn", DIRS.encode())
        assert _dirs_state(b) == DIRS_STATE
        assert fresh_import_differences(b) == {}
        for config, state in ((DEFAULT_CONFIG, DEFAULT_DIRS_STATE), (DIRS, DIRS_STATE)):
            b.save_file("logseq/config.edn", config.encode())
            assert _dirs_state(b) == state
            assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DIRS.replace('"daily"', '"days"').encode())  # journals elsewhere: daily/ a vault's
        assert page_titles(b)["daily/2026_11_20"] == "2026_11_20"
        assert fresh_import_differences(b) == {}
        b.delete_file("logseq/config.edn")
        assert page_titles(b)["notes/Project___Alpha"] == "Project___Alpha"
        assert fresh_import_differences(b) == {}
        b.move_page("daily/2026_11_20", "x/2026_11_20")
        b.save_file("logseq/config.edn", DIRS.encode())
        assert page_titles(b)["x/2026_11_20"] == "2026_11_20"
        b.move_page("x/2026_11_20", "daily/2026_11_20")
        assert _dirs_state(b) == DIRS_STATE
        assert fresh_import_differences(b) == {}


def test_a_vault_with_daily_and_journals_folders_and_no_graph_config_is_untouched(tmp_path, db_path):
    vault = {k: v for k, v in DIRS_GRAPH.items() if k != "logseq/config.edn"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "v", vault))
        t = page_titles(b)
        assert (t["daily/2026_11_20"], t["notes/Project___Alpha"], t["journals/2026_11_21"]) == ("2026_11_20", "Project___Alpha", "2026_11_21")
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("setting", ["auto", "logseq"])
def test_an_upgraded_brain_reads_the_graphs_folders(tmp_path, db_path, monkeypatch, setting):
    """A brain made before v76 / pg_v83 read a graph's ``:pages-directory``/``:journals-directory``
    as unset: on open its pages are read as a fresh import reads them."""
    from gbrain.page import journals
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    read = journals.settings
    with monkeypatch.context() as m:  # gbrain before v76: the folder settings unread
        m.setattr(journals, "settings", lambda text: read(text.replace("-directory", "-directory-unread")))
        with brain_at_version(db_path, *version_before(dbmod._m76_logseq_settings, pg._logseq_settings), made_now=True) as b:
            if setting == "logseq":
                b.set_config("property_syntax", "logseq")
            import_tree(b, write_tree(tmp_path / "g", DIRS_GRAPH))
            if setting == "auto":
                assert _dirs_state(b) == DEFAULT_DIRS_STATE
    with Brain.open(db_path) as b:
        if setting == "auto":
            assert _dirs_state(b) == DIRS_STATE
        assert page_titles(b)["daily/2026_11_20"] == "Nov 20th, 2026"
        assert fresh_import_differences(b) == {}


LEGACY_GRAPH = {"logseq/config.edn": LEGACY_FORMAT,
                "journals/2026_11_20.md": "- a day\n",
                "pages/2026_11_21.md": "- a page named as a day\n",
                "pages/Plan.md": "- [[2026-11-20]] [[Nov 20th, 2026]] [[Nov 21st, 2026]] [[2026-11-21]]\n"}
#: where Logseq opens each of Plan's links under ``:date-formatter "yyyy-MM-dd"``: each name read as a
#: day (the title format, ``MMM do, yyyy``, ``yyyy-MM-dd``, ``yyyy_MM_dd``) is that day's page
LEGACY_TARGETS = {"2026-11-20": "journals/2026_11_20", "Nov 20th, 2026": "journals/2026_11_20",
                  "Nov 21st, 2026": "pages/2026_11_21", "2026-11-21": "pages/2026_11_21"}


def test_a_legacy_date_formatter_is_the_graphs_title_format(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", LEGACY_GRAPH))
        t = page_titles(b)
        assert (t["journals/2026_11_20"], t["pages/2026_11_21"]) == ("2026-11-20", "2026-11-21")
        assert link_targets(b, "pages/Plan") == LEGACY_TARGETS
        assert fresh_import_differences(b) == {}


def test_a_date_formatter_written_changed_or_removed_is_read_at_once(tmp_path, db_path):
    """A config edit that sets, changes or drops ``:date-formatter`` titles the journals (and the
    pages named as a day) as a fresh import of the tree would; the newer key, once set, wins."""
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", {**LEGACY_GRAPH, "logseq/config.edn": DEFAULT_CONFIG}))
        assert page_titles(b)["journals/2026_11_20"] == "Nov 20th, 2026"
        steps = [(LEGACY_FORMAT, "2026-11-20"),
                 (LEGACY_FORMAT.replace('"yyyy-MM-dd"', '"dd.MM.yyyy"'), "20.11.2026"),
                 (LEGACY_FORMAT.replace(":hidden []", ':hidden [] :journal/page-title-format "yyyy/MM/dd"'), "2026/11/20"),
                 (DEFAULT_CONFIG, "Nov 20th, 2026"), (LEGACY_FORMAT, "2026-11-20")]
        for config, title in steps:
            b.save_file("logseq/config.edn", config.encode())
            assert page_titles(b)["journals/2026_11_20"] == title
            assert fresh_import_differences(b) == {}
        assert link_targets(b, "pages/Plan") == LEGACY_TARGETS


@pytest.mark.parametrize("setting", ["auto", "logseq"])
def test_an_upgraded_brain_reads_a_legacy_date_formatter(tmp_path, db_path, monkeypatch, setting):
    """A brain made before v76 / pg_v83 read a graph's ``:date-formatter`` as unset (its journals
    and pages named as a day titled ``Nov 20th, 2026``, its links resolved so): on open they are
    read as Logseq reads them, equal to a fresh import."""
    from gbrain.page import journals
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    read = journals.settings
    with monkeypatch.context() as m:  # gbrain before v76: :date-formatter unread
        m.setattr(journals, "settings", lambda text: read(text.replace(":date-formatter", ":unread-date-formatter")))
        with brain_at_version(db_path, *version_before(dbmod._m76_logseq_settings, pg._logseq_settings), made_now=True) as b:
            if setting == "logseq":
                b.set_config("property_syntax", "logseq")
            import_tree(b, write_tree(tmp_path / "g", LEGACY_GRAPH))
            assert page_titles(b)["journals/2026_11_20"] == "Nov 20th, 2026"
    with Brain.open(db_path) as b:
        assert page_titles(b)["journals/2026_11_20"] == "2026-11-20"
        if setting == "auto":
            assert page_titles(b)["pages/2026_11_21"] == "2026-11-21"
            assert link_targets(b, "pages/Plan") == LEGACY_TARGETS
        assert fresh_import_differences(b) == {}


def test_the_upgrade_reads_no_page_of_a_brain_without_a_legacy_date_formatter(tmp_path, db_path, monkeypatch):
    """v76 / pg_v83's step reads the stored graph configs once: a vault with a ``journals/`` or
    ``daily/`` folder and no ``logseq/config.edn``, or a graph whose config has no ``:date-formatter``
    (or sets the newer key too), parses no page and changes no row."""
    from gbrain.storage import db as dbmod

    days = []
    monkeypatch.setattr(dbmod, "rederive_logseq_days", lambda conn: days.append(1) or 0)
    vault = {"journals/2026-11-20.md": "# a day\n", "daily/2026-11-21.md": "- [[2026-11-20]]\n",
             "notes/config.edn": ':date-formatter "yyyy-MM-dd"\n'}
    newer = LEGACY_FORMAT.replace(":hidden []", ':hidden [] :journal/page-title-format "MMM do, yyyy"')
    for i, tree in enumerate((vault, {**vault, "logseq/config.edn": DEFAULT_CONFIG}, {**vault, "logseq/config.edn": newer},
                              {**vault, "g/logseq/config.edn": newer, "g/journals/2026_11_20.md": "- x\n"})):
        with Brain.open(str(tmp_path / f"{i}.db"), create=True) as b:
            import_tree(b, write_tree(tmp_path / f"t{i}", tree))
            with b.transaction():
                assert dbmod.rederive_logseq_settings(b.conn) == 0
    assert days == []
    with Brain.open(str(tmp_path / "legacy.db"), create=True) as b:  # (the test's own check: it can fail)
        import_tree(b, write_tree(tmp_path / "legacy", {**vault, "logseq/config.edn": LEGACY_FORMAT}))
        with b.transaction():
            dbmod.rederive_logseq_settings(b.conn)
    assert days == [1]


def test_the_page_title_format_wins_over_a_legacy_date_formatter(tmp_path, db_path):
    """Logseq reads ``:date-formatter`` only where ``:journal/page-title-format`` is unset."""
    config = LEGACY_FORMAT.replace(":hidden []", ':hidden [] :journal/page-title-format "dd.MM.yyyy"')
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", {"logseq/config.edn": config, "journals/2026_11_20.md": "- a day\n"}))
        assert page_titles(b)["journals/2026_11_20"] == "20.11.2026"


# ---- two files naming one day ------------------------------------------------------------------

DAY_LINKS = "- [[Nov 20th, 2026]] [[2026-11-20]] [[2026_11_20]]\n"
TWO_FILES = {"logseq/config.edn": DEFAULT_CONFIG,
             "journals/2026_11_20.md": "- the journal\n",
             "pages/2026-11-20.md": "- the page\n",
             "pages/Plan.md": DAY_LINKS,
             "journals/2026_11_21.md": DAY_LINKS,
             "notes/x.md": DAY_LINKS}
#: gbrain's choice, page by linking page: a file name first (``2026-11-20`` is the pages/ file's,
#: ``2026_11_20`` the journal's), then the title both have: the nearer folder, then the shorter path.
#: (Logseq: every one of them is the journal, the pages/ file skipped at load with a warning.)
TWO_FILES_TARGETS = {
    "pages/Plan": {"Nov 20th, 2026": "pages/2026-11-20", "2026-11-20": "pages/2026-11-20", "2026_11_20": "journals/2026_11_20"},
    "journals/2026_11_21": {"Nov 20th, 2026": "journals/2026_11_20", "2026-11-20": "pages/2026-11-20", "2026_11_20": "journals/2026_11_20"},
    "notes/x": {"Nov 20th, 2026": "pages/2026-11-20", "2026-11-20": "pages/2026-11-20", "2026_11_20": "journals/2026_11_20"},
}


def test_two_files_naming_one_day_are_two_pages_each_link_resolved_deterministically(tmp_path, db_path):
    """Both files are kept as pages titled as the day; each link goes where README says (not
    Logseq's choice, the journal for all), the same after any order of saves as a fresh import."""
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", TWO_FILES))
        t = page_titles(b)
        assert t["journals/2026_11_20"] == t["pages/2026-11-20"] == "Nov 20th, 2026"
        assert {s: link_targets(b, s) for s in TWO_FILES_TARGETS} == TWO_FILES_TARGETS
        assert fresh_import_differences(b) == {}
    with Brain.open(str(tmp_path / "incremental.db"), create=True) as b:  # the pages/ file before the journal
        for path in ("logseq/config.edn", "pages/Plan.md", "journals/2026_11_21.md", "notes/x.md", "pages/2026-11-20.md",
                     "journals/2026_11_20.md"):
            if path.endswith(".md"):
                b.save_page(path, TWO_FILES[path])
            else:
                b.save_file(path, TWO_FILES[path].encode())
        assert {s: link_targets(b, s) for s in TWO_FILES_TARGETS} == TWO_FILES_TARGETS
        assert fresh_import_differences(b) == {}
        b.delete_page("pages/2026-11-20")  # one file left: every link to the day is the journal
        assert set(link_targets(b, "pages/Plan").values()) == {"journals/2026_11_20"}
        assert fresh_import_differences(b) == {}
