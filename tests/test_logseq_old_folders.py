"""A Logseq graph whose config names other folders still reads its default ``pages/`` and
``journals/`` folders as the graph's (session 55).

Logseq's graph parser reads every file of the graph whatever its folder (deps/common graph.cljs
``get-files``) and names each page by ``title::``, else its file name by ``:file/name-format``
(extract.cljc ``get-page-name``); ``gp-block/convert-page-if-journal`` then turns a name that
parses as a day (``safe-journal-title-formatters``) into a journal titled by the title format.
``:pages-directory``/``:journals-directory`` say only where Logseq writes new files, so the files
written before the setting changed (``journals/2026_11_22.md``) stay the graph's: gbrain reads a
graph's ``pages/`` and ``journals/`` as its pages and journals folders whatever the config names.
Its other folders stay a vault's (docs/migrating.md). SQLite v78 /
Postgres v86 re-derive the brains stored before (the upgrade tests below).
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

#: a graph that moved both folders, with files written before the move in Logseq's default ones
GRAPH = {"logseq/config.edn": DIRS,
         "daily/2026_11_20.md": "- a new day\n",
         "journals/2026_11_22.md": "- written before :journals-directory was set\n",
         "journals/2026_11_23.md": "title:: Retro\n\n- a journal with a title of its own\n",
         "pages/Old___Page.md": "tags:: launch\n\n- [[Nov 22nd, 2026]] [[2026-11-20]]\n",
         "pages/2026_11_21.md": "- a page named as a day\n",
         "pages/contents.md": "- Logseq's Contents page\n",
         "notes/Plan.md": "- [[Nov 22nd, 2026]] [[Old/Page]] [[Nov 21st, 2026]] [[Retro]] [[2026_11_22]]\n",
         "other/Foo___Bar.md": "tags:: vault\n\n- an Obsidian note beside the graph's folders\n"}

#: what Logseq names each page of GRAPH (and what a fresh import titles it)
TITLES = {"daily/2026_11_20": "Nov 20th, 2026", "journals/2026_11_22": "Nov 22nd, 2026", "journals/2026_11_23": "Retro",
          "pages/Old___Page": "Old/Page", "pages/2026_11_21": "Nov 21st, 2026", "pages/contents": "Contents",
          "notes/Plan": "Plan", "other/Foo___Bar": "Foo___Bar"}
PLAN_LINKS = {"Nov 22nd, 2026": "journals/2026_11_22", "Old/Page": "pages/Old___Page", "Nov 21st, 2026": "pages/2026_11_21",
              "Retro": "journals/2026_11_23", "2026_11_22": "journals/2026_11_22"}


def _state(b) -> tuple:
    tags = {s: sorted(r[0] for r in b.conn.execute("SELECT t.tag FROM tags t JOIN pages p ON p.id = t.page_id WHERE p.slug = ?", (s,)))
            for s in ("pages/Old___Page", "other/Foo___Bar")}
    titles = page_titles(b)
    return {s: titles.get(s) for s in TITLES}, link_targets(b, "notes/Plan"), tags


STATE = (TITLES, PLAN_LINKS, {"pages/Old___Page": ["launch"], "other/Foo___Bar": []})


def test_the_briefs_graph_reads_its_old_journals_folder(tmp_path, db_path):
    """The report's reproduction: ``:journals-directory "daily"``, a file left in ``journals/``."""
    graph = {"logseq/config.edn": '{:journals-directory "daily"}\n', "journals/2026_11_22.md": "- in journals\n",
             "pages/x.md": "- [[Nov 22nd, 2026]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        assert page_titles(b)["journals/2026_11_22"] == "Nov 22nd, 2026"
        assert link_targets(b, "pages/x") == {"Nov 22nd, 2026": "journals/2026_11_22"}
        assert fresh_import_differences(b) == {}


def test_a_graph_with_other_folders_reads_its_default_folders_as_its_own(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", GRAPH))
        assert _state(b) == STATE
        assert fresh_import_differences(b) == {}


def test_the_default_folders_follow_each_save_and_config_edit(tmp_path, db_path):
    """Pages saved before the config, the config set, reset to Logseq's folders, set again and
    deleted: every state equal to a fresh import of the tree."""
    with Brain.open(db_path, create=True) as b:
        for path, text in GRAPH.items():
            if path.endswith(".md"):
                b.save_page(path, text)
        b.save_file("logseq/config.edn", DIRS.encode())
        assert _state(b) == STATE
        assert fresh_import_differences(b) == {}
        for config in (DEFAULT_CONFIG, DIRS, DIRS.replace('"daily"', '"days"')):
            b.save_file("logseq/config.edn", config.encode())
            assert page_titles(b)["journals/2026_11_22"] == "Nov 22nd, 2026"
            assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DIRS.encode())
        b.move_page("journals/2026_11_22", "other/2026_11_22")  # out of the graph's folders: a vault's note
        assert page_titles(b)["other/2026_11_22"] == "2026_11_22"
        assert link_targets(b, "notes/Plan")["Nov 22nd, 2026"] is None
        b.move_page("other/2026_11_22", "journals/2026_11_22")
        assert _state(b) == STATE
        assert fresh_import_differences(b) == {}
        b.delete_file("logseq/config.edn")
        assert page_titles(b)["journals/2026_11_22"] == "2026_11_22"
        assert fresh_import_differences(b) == {}


def test_under_property_syntax_logseq_the_old_journals_take_the_graphs_title_format(tmp_path, db_path):
    config = DIRS.replace(":hidden []", ':hidden [] :journal/page-title-format "yyyy-MM-dd"')
    with Brain.open(db_path, create=True) as b:
        b.set_config("property_syntax", "logseq")
        import_tree(b, write_tree(tmp_path / "g", {**GRAPH, "logseq/config.edn": config}))
        t = page_titles(b)
        assert (t["journals/2026_11_22"], t["daily/2026_11_20"]) == ("2026-11-22", "2026-11-20")
        assert fresh_import_differences(b) == {}


def _v76_syntax(new):
    """``page_property_syntax`` as gbrain before v78 read it: a graph whose config names other
    folders read its default ``pages/``/``journals/`` as a vault's."""
    from gbrain.page.journals import split_dirs

    def old(path, setting, graphs):
        for root, value in (graphs.items() if isinstance(graphs, dict) else ()):
            if root and not path.startswith(root + "/"):
                continue
            dirs = split_dirs(value)
            first = (path[len(root) + 1:] if root else path).split("/")[0]
            if dirs != ("pages", "journals") and "/" in (path[len(root) + 1:] if root else path) \
                    and first in ("pages", "journals") and first not in dirs:
                return "dataview" if setting == "auto" else setting
        return new(path, setting, graphs)
    return old


@pytest.mark.parametrize("setting", ["auto", "logseq"])
def test_an_upgraded_brain_reads_the_default_folders_as_a_fresh_import(tmp_path, db_path, monkeypatch, setting):
    """A brain made before v78 / pg_v86 read a graph's default folders as a vault's when its config
    named others: on open its pages are read as a fresh import reads them."""
    from gbrain.page import markdown
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync import importer

    with monkeypatch.context() as m:  # gbrain before v78
        old = _v76_syntax(markdown.page_property_syntax)
        m.setattr(markdown, "page_property_syntax", old)
        m.setattr(importer, "page_property_syntax", old)
        with brain_at_version(db_path, *version_before(dbmod._m78_logseq_old_folders, pg._logseq_old_folders), made_now=True) as b:
            if setting == "logseq":
                b.set_config("property_syntax", "logseq")
            import_tree(b, write_tree(tmp_path / "g", GRAPH))
            if setting == "auto":
                t = page_titles(b)
                assert (t["journals/2026_11_22"], t["pages/Old___Page"]) == ("2026_11_22", "Old___Page")
    with Brain.open(db_path) as b:
        if setting == "auto":
            assert _state(b) == STATE
        assert page_titles(b)["journals/2026_11_22"] == "Nov 22nd, 2026"
        assert fresh_import_differences(b) == {}


def test_the_upgrade_reads_no_page_of_a_brain_whose_graphs_keep_logseqs_folders(tmp_path, db_path):
    """Only a graph whose config names other folders has its default folders' pages read again."""
    from gbrain.storage import db as dbmod

    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", {**GRAPH, "logseq/config.edn": DEFAULT_CONFIG}))
        with b.transaction():
            assert dbmod.rederive_logseq_old_folders(b.conn) == 0
        b.save_file("logseq/config.edn", DIRS.encode())
        with b.transaction():
            assert dbmod.rederive_logseq_old_folders(b.conn) == 5  # journals/ 2, pages/ 3
        assert _state(b) == STATE


def test_a_graph_config_moved_in_the_brain_reads_its_graph_again(tmp_path, db_path):
    """``Brain.move_stored`` (a stored file given another path, as sync moves a conflict copy)
    of a graph's ``logseq/config.edn``: the graph it leaves and the one it joins are read again,
    as when sync deletes and imports a moved config."""
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", GRAPH))
        b.move_stored("logseq/config.edn", "old/config.edn")
        assert page_titles(b)["journals/2026_11_22"] == "2026_11_22"
        assert fresh_import_differences(b) == {}
        b.move_stored("old/config.edn", "logseq/config.edn")
        assert _state(b) == STATE
        assert fresh_import_differences(b) == {}


# ---- a config Logseq's EDN reader refuses: Logseq's defaults --------------------------------------

@pytest.mark.engine_free
@pytest.mark.parametrize("text", [
    '{:pages-directory "notes" :journals-directory "daily"',  # unclosed: EOF while reading
    '{:pages-directory "notes" :journals-directory "daily" :x "open}',  # an unclosed string
    '{:pages-directory "notes" :journals-directory "daily" :x [1 2}',  # a closer of another collection
    '] {:pages-directory "notes" :journals-directory "daily"}',  # an unmatched closer first
    '{:pages-directory "notes" :journals-directory "daily" :x}',  # a map of an odd number of forms
    '{:pages-directory "notes" :journals-directory "daily" :pages-directory "p"}',  # a duplicate key
    '{:x {[1] 1 (1) 2} :pages-directory "notes" :journals-directory "daily"}',  # a key twice: a list equals the vector
    '{:hidden #"^archive/" :pages-directory "notes" :journals-directory "daily"}',  # a regex literal: no EDN
    '{:x #?(:clj 1 :cljs 2) :pages-directory "notes" :journals-directory "daily"}',  # a reader conditional
    '{:x #foo 1 :pages-directory "notes" :journals-directory "daily"}',  # a tag no reader reads
    ':x {:pages-directory "notes" :journals-directory "daily"}',  # the first form is no map
])
def test_a_config_logseqs_reader_refuses_is_logseqs_defaults(text):
    """Logseq reads ``config.edn`` with its EDN reader (frontend/handler/repo_config.cljs
    ``read-repo-config``: ``edn/read-string``, which reads the first form and throws on a malformed
    one); a config it refuses sets nothing, so the graph has Logseq's defaults (state.cljs
    ``get-pages-directory``: ``(or (:pages-directory (get-config repo)) "pages")``)."""
    from gbrain.page import journals

    assert journals.settings(text) == journals.DEFAULTS


@pytest.mark.engine_free
@pytest.mark.parametrize("text", [
    '{:pages-directory "notes" :journals-directory "daily"}}',  # past the first form: unread
    '{:pages-directory "notes" :journals-directory "daily"} [',
    '#_ #_ {:a 1} {:b 2} {:pages-directory "notes" :journals-directory "daily"}',
    '{:x #inst "2026-01-01" :y #uuid "00000000-0000-0000-0000-000000000000" :z #{1 2} :pages-directory "notes" :journals-directory "daily"}',
    r'{:x [\a \newline \u0041 \o101 \"] :pages-directory "notes" :journals-directory "daily"}',
    ';; a comment\n{:pages-directory "notes" ; another\n :journals-directory "daily" :x {:a [1 (2)]}}',
    '{:x #{1 1} :pages-directory "notes" :journals-directory "daily"}',  # cljs read-set is (set …): no duplicate check
])
def test_a_config_logseqs_reader_reads_sets_the_folders(text):
    from gbrain.page import journals

    st = journals.settings(text)
    assert (st.pages_dir, st.journals_dir) == ("notes", "daily")


BROKEN = DIRS.replace(":hidden []", ':hidden [] :x [1 2}')  # a closer of another collection


def test_a_graph_whose_config_logseq_refuses_reads_logseqs_folders(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", {**GRAPH, "logseq/config.edn": BROKEN}))
        t = page_titles(b)
        assert (t["daily/2026_11_20"], t["journals/2026_11_22"], t["pages/Old___Page"]) == ("2026_11_20", "Nov 22nd, 2026", "Old___Page")
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", DIRS.encode())  # mended
        assert _state(b) == STATE
        b.save_file("logseq/config.edn", BROKEN.encode())  # broken again
        assert page_titles(b)["daily/2026_11_20"] == "2026_11_20"
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("setting", ["auto", "logseq"])
def test_an_upgraded_brain_reads_a_config_logseq_refuses_as_logseqs_defaults(tmp_path, db_path, monkeypatch, setting):
    """A brain made before v78 / pg_v86 read a config Logseq refuses as far as it went: on open
    its graph is read as a fresh import reads it."""
    from gbrain.page import journals
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    with monkeypatch.context() as m:  # gbrain before v78: the settings written were read
        m.setattr(journals, "settings", journals.lenient_settings)
        with brain_at_version(db_path, *version_before(dbmod._m78_logseq_old_folders, pg._logseq_old_folders), made_now=True) as b:
            if setting == "logseq":
                b.set_config("property_syntax", "logseq")
            import_tree(b, write_tree(tmp_path / "g", {**GRAPH, "logseq/config.edn": BROKEN}))
            if setting == "auto":
                assert page_titles(b)["daily/2026_11_20"] == "Nov 20th, 2026"
    with Brain.open(db_path) as b:
        assert page_titles(b)["daily/2026_11_20"] == "2026_11_20"
        assert fresh_import_differences(b) == {}


# ---- two files naming one day, one in the old journals folder --------------------------------------

TWO_DAYS = {"logseq/config.edn": DIRS,
            "daily/2026_11_22.md": "- the new journals folder's\n",
            "journals/2026_11_22.md": "- the old journals folder's\n",
            "pages/2026-11-22.md": "- a page named as the day\n",
            "notes/Plan.md": "- [[Nov 22nd, 2026]] [[2026_11_22]] [[2026-11-22]]\n",
            "journals/2026_11_23.md": "- [[Nov 22nd, 2026]] [[2026_11_22]] [[2026-11-22]]\n"}
#: README's rules: a file name first (``2026-11-22`` is the pages/ file's; ``2026_11_22`` both
#: journals'), then the title all three have, the one nearer the linking page, then the shorter path
TWO_DAYS_TARGETS = {
    "notes/Plan": {"Nov 22nd, 2026": "daily/2026_11_22", "2026_11_22": "daily/2026_11_22", "2026-11-22": "pages/2026-11-22"},
    "journals/2026_11_23": {"Nov 22nd, 2026": "journals/2026_11_22", "2026_11_22": "journals/2026_11_22", "2026-11-22": "pages/2026-11-22"},
}


def test_files_naming_one_day_in_the_old_and_new_folders_resolve_as_readme_says(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", TWO_DAYS))
        t = page_titles(b)
        assert t["daily/2026_11_22"] == t["journals/2026_11_22"] == t["pages/2026-11-22"] == "Nov 22nd, 2026"
        assert {s: link_targets(b, s) for s in TWO_DAYS_TARGETS} == TWO_DAYS_TARGETS
        assert fresh_import_differences(b) == {}
        b.delete_page("daily/2026_11_22")  # the new folder's gone: of the two left as near, the shorter path
        assert link_targets(b, "notes/Plan") == {"Nov 22nd, 2026": "pages/2026-11-22", "2026_11_22": "journals/2026_11_22",
                                                 "2026-11-22": "pages/2026-11-22"}
        assert fresh_import_differences(b) == {}
