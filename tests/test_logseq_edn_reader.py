"""A ``config.edn`` Logseq's EDN reader reads is read by gbrain too (review of v78, session 55).

Logseq reads the config with ``clojure.edn/read-string`` (frontend/handler/repo_config.cljs),
which ClojureScript aliases to ``cljs.reader`` → ``cljs.tools.reader.edn``: its whitespace is
JavaScript's ``\\s`` and the comma (a byte-order mark is blank), ``#{…}`` is ``(set …)`` (an
element written twice is no error), ``^meta form`` and ``#:ns{…}`` are read, ``#!`` opens a line
comment, a tagged form is its tag's value. A config it reads must keep its settings in gbrain:
refusing it silently loses the graph's title formats and folders (``journals.DEFAULTS``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.page import journals
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import page_titles, write_tree

SET = ':journal/page-title-format "yyyy-MM-dd" :journals-directory "daily"'


@pytest.mark.engine_free
@pytest.mark.parametrize("text", [
    "\ufeff{" + SET + "}",  # a byte-order mark: blank to JavaScript's \s
    "{" + SET + "\u2028:x\ufeff1}",
    "{" + SET + ' :default-queries {:journals [{:query [:find (pull ?b [*]) :where [?b :block/marker ?m] [(contains? #{"NOW" "DOING" "NOW"} ?m)]]}]}}',
    "{" + SET + " :x #{1 1}}",  # (set …): no duplicate check
    "{" + SET + ' :x #{#uuid "00000000-0000-0000-0000-000000000000" "00000000-0000-0000-0000-000000000000"}}',
    "{" + SET + " :x {#inst \"2026-01-01\" 1 \"2026-01-01\" 2}}",  # a tagged key is not its string
    "^:meta {" + SET + "}",  # metadata on the top map
    "^{:doc \"x\"} {" + SET + "}",
    "#^{:doc \"x\"} {" + SET + "}",  # (the deprecated spelling)
    "{" + SET + " :x ^:private [1 2] :y ^String sym :z ^[long] (a)}",
    "{" + SET + " :x #:block{:marker \"NOW\" :_/plain 1}}",  # a namespaced map
    '#:journal{:page-title-format "yyyy-MM-dd"} ',
    "#!/usr/bin/env bb\n{" + SET + "}",  # #! is a line comment
    "{" + SET + " #! a comment } ]\n :x 1}",
    "{" + SET + r" :x [-600 0.5 1/2 1e3 0x1F 36rZ 1N 1.5M +5 0 017 NaN -Infinity nil true / clojure.core//]}",
    "{" + SET + r" :x [\a \newline \u00e9 \o101 \( \; \\ \,] :y \\}",
    "{" + SET + " :x [:admonition&src? :block/properties a.b/c* <=> ' 'x x']}",
])
def test_a_config_logseqs_reader_reads_keeps_its_settings(text):
    st = journals.settings(text)
    assert st.title_format == "yyyy-MM-dd"
    if "#:journal" not in text:
        assert st.journals_dir == "daily"


@pytest.mark.engine_free
@pytest.mark.parametrize("text", [
    "{" + SET + " :x [1 #_]}",  # #_ discards the next form: there is none before the closer
    "{" + SET + " :x #_}",
    "{" + SET + r' :x "C:\Users"}',  # a string escape EDN has not
    "{" + SET + r' :x "\u00e"}',
    "{" + SET + " :x ::auto}",  # no ::keyword in EDN
    "{" + SET + " :x ^:m}",  # metadata on nothing
    "{" + SET + " :x ^:m 1}",  # metadata on a number
    "{" + SET + " :x #:ns [1]}",  # a namespaced map's prefix on no map
    "#:ns{" + SET + " :x}",
    "{" + SET + " :x 08}",  # no number (cljs.tools.reader's int-pattern: 0[0-9]+)
    "{" + SET + " :x 1.2.3}",
    "{" + SET + r" :x \foo}",  # no character
    "{" + SET + r" :x \u00e}",
    "{" + SET + " :x :a/b/c}",  # parse-symbol: one /
    "{" + SET + " :x ns/1a}",
])
def test_a_config_logseqs_reader_refuses_is_logseqs_defaults(text):
    assert journals.settings(text) == journals.DEFAULTS


@pytest.mark.engine_free
def test_a_namespaced_top_map_sets_its_keys():
    st = journals.settings('#:journal{:page-title-format "yyyy/MM/dd" :file-name-format "yyyy-MM-dd"} ')
    assert (st.title_format, st.file_format) == ("yyyy/MM/dd", "yyyy-MM-dd")
    assert journals.settings('#:x{:_/journals-directory "daily"}').journals_dir == "daily"


@pytest.mark.engine_free
def test_the_old_reading_is_kept_for_the_upgrade():
    """``lenient_settings`` is the pre-v78 reading v78 compares with: unchanged by the strict fixes."""
    assert journals.lenient_settings("\ufeff{" + SET + "}").title_format == "yyyy-MM-dd"
    assert journals.lenient_settings("^:m {" + SET + "}").title_format == "yyyy-MM-dd"
    assert journals.lenient_settings('{:x ^:m [1] ' + SET + "}").title_format == "MMM do, yyyy"
    assert journals.lenient_settings("{" + SET + " :x [1 #_]}").title_format == "yyyy-MM-dd"


GRAPH = {"daily/2026_11_20.md": "- a day\n", "journals/2026_11_21.md": "- an older day\n",
         "pages/Plan.md": "- [[2026-11-20]] [[2026-11-21]]\n"}


def test_a_graph_whose_config_starts_with_a_bom_keeps_its_settings(tmp_path, db_path):
    """A config saved by an editor that writes a byte-order mark: Logseq reads it."""
    config = "\ufeff{" + SET + ' :x #{"NOW" "NOW"}}\r\n'
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", {**GRAPH, "logseq/config.edn": config}))
        t = page_titles(b)
        assert (t["daily/2026_11_20"], t["journals/2026_11_21"]) == ("2026-11-20", "2026-11-21")
        assert fresh_import_differences(b) == {}
        b.save_file("logseq/config.edn", config.replace('"NOW" "NOW"', '"NOW" "DOING"').encode())
        assert page_titles(b)["daily/2026_11_20"] == "2026-11-20"
        b.save_file("logseq/config.edn", config.replace("yyyy-MM-dd", "yyyy/MM/dd").encode())
        assert page_titles(b)["daily/2026_11_20"] == "2026/11/20"
        assert fresh_import_differences(b) == {}


def test_sync_and_watch_of_config_edits_and_folder_renames_equal_a_fresh_import(tmp_path, db_path):
    """(review, session 55) The config names ``daily``, then ``days``; files in both folders;
    folders renamed and back; the config broken, mended with a BOM, deleted, back; ``logseq/``
    renamed away and back: after each sync (or watch round) the brain equals a fresh import."""
    import os

    from gbrain.sync.engine import SyncEngine

    DEFAULT = (Path(__file__).parent / "data" / "logseq" / "config.edn").read_text(encoding="utf-8")
    DIRS = DEFAULT.replace(":hidden []", ':hidden [] :pages-directory "notes" :journals-directory "daily"')
    root = tmp_path / "g"

    def w(p, t):
        f = root / p
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(t, encoding="utf-8")

    files = {"logseq/config.edn": DEFAULT, "journals/2026_11_22.md": "- old day\n", "pages/Old___Page.md": "- [[Nov 22nd, 2026]] [[Nov 20th, 2026]] [[2026-11-24]]\n",
             "notes/Plan.md": "- [[Nov 22nd, 2026]] [[Old/Page]] [[Nov 20th, 2026]]\n"}
    for p, t in files.items():
        w(p, t)

    def titles(b):
        return dict(b.conn.execute("SELECT slug, title FROM pages ORDER BY slug").fetchall())

    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root); eng.bind()
        seen = []

        def step(name, paths=None):  # a sync of the whole tree, or a watch round of the paths
            if paths is None:
                eng.sync()
            else:
                eng.reconcile(paths)
            assert (name, fresh_import_differences(b)) == (name, {})
            seen.append((name, titles(b).get("daily/2026_11_20"), titles(b).get("journals/2026_11_22")))
        step("initial")
        w("logseq/config.edn", DIRS); step("config names daily (sync)")
        w("daily/2026_11_20.md", "- new day\n"); w("notes/Extra___Page.md", "- x\n"); w("journals/2026_11_23.md", "- y\n"); step("files in both folders")
        os.rename(root / "daily", root / "days"); step("daily renamed days (folder not named)")
        w("logseq/config.edn", DIRS.replace('"daily"', '"days"')); step("config names days")
        os.rename(root / "journals", root / "jour"); step("journals renamed jour")
        os.rename(root / "jour", root / "journals"); step("jour renamed back")
        w("logseq/config.edn", DIRS.replace('"daily"', '"days"').replace(":hidden []", ":hidden [] :x [1 2}")); step("config broken")
        w("logseq/config.edn", "\ufeff" + DIRS.replace('"daily"', '"days"')); step("config fixed (with a BOM)")
        (root / "logseq/config.edn").unlink(); step("config deleted")
        w("logseq/config.edn", DIRS.replace('"daily"', '"days"')); step("config back")
        # watch-style: reconcile named paths
        w("logseq/config.edn", DIRS); step("watch: config names daily", ["logseq/config.edn"])
        os.rename(root / "days", root / "daily"); step("watch: days → daily", ["days/2026_11_20.md", "daily/2026_11_20.md"])
        (root / "logseq/config.edn").unlink(); step("watch: config deleted", ["logseq/config.edn"])
        w("logseq/config.edn", DIRS.replace(":hidden []", ":hidden [] :x #_]")); step("watch: config broken", ["logseq/config.edn"])
        w("logseq/config.edn", DIRS); step("watch: config fixed", ["logseq/config.edn"])
        os.rename(root / "logseq", root / "lq"); step("logseq/ renamed lq (config gone)")
        os.rename(root / "lq", root / "logseq"); step("lq renamed logseq")
        assert [s[1:] for s in seen if s[0].startswith("watch")] == [(None, "Nov 22nd, 2026"), ("Nov 20th, 2026", "Nov 22nd, 2026"), ("2026_11_20", "2026_11_22"),
                                                                 ("2026_11_20", "Nov 22nd, 2026"), ("Nov 20th, 2026", "Nov 22nd, 2026")]


UPGRADE_GRAPH = {"daily/2026_11_20.md": "- a day\n", "journals/2026_11_21.md": "- an older day\n",
                 "pages/Old___Page.md": "- [[2026-11-20]] [[Nov 21st, 2026]] [[2026-11-21]]\n",
                 "notes/Plan.md": "- [[Old/Page]] [[Nov 20th, 2026]] [[2026-11-20]]\n"}


@pytest.mark.parametrize("config", [
    "{" + SET + r' :pages-directory "notes" :file/name-format :triple-lowbar :zotero/dir "C:\Users\me"}',  # refused now
    "\ufeff{" + SET + ' :pages-directory "notes" :file/name-format :triple-lowbar}',  # read by both
    "{" + SET + ' :pages-directory "notes" :file/name-format :triple-lowbar :q #{"NOW" "NOW"}}',
    "{" + SET + ' :pages-directory "notes" :file/name-format :triple-lowbar :x [1 #_]}',  # refused now
])
def test_a_brain_from_before_v78_upgrades_to_a_fresh_import(tmp_path, db_path, monkeypatch, config):
    """A brain made before v78 / pg_v86 read each config leniently: on open its graph is read as
    a fresh import reads it now."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    with monkeypatch.context() as m:  # gbrain before v78: the settings written were read
        m.setattr(journals, "settings", journals.lenient_settings)
        with Brain.open(db_path, create=True) as b:
            import_tree(b, write_tree(tmp_path / "g", {**UPGRADE_GRAPH, "logseq/config.edn": config}))
            assert page_titles(b)["daily/2026_11_20"] == "2026-11-20"
            with b.transaction():
                _rewind(b.conn, pg._logseq_old_folders, dbmod._m78_logseq_old_folders)
    with Brain.open(db_path) as b:
        refused = journals.settings(config) == journals.DEFAULTS
        assert page_titles(b)["daily/2026_11_20"] == ("2026_11_20" if refused else "2026-11-20")
        assert fresh_import_differences(b) == {}


def test_two_journals_of_one_day_deleted_saved_back_and_moved_equal_a_fresh_import(tmp_path, db_path):
    """(review) ``daily/2026_11_22.md`` and the old ``journals/2026_11_22.md``: the links to the day
    and the backlinks of each follow a delete, a save back and a move as a fresh import reads them."""
    from test_logseq_old_folders import TWO_DAYS, TWO_DAYS_TARGETS

    from conftest import link_targets

    def linked_from(b, slug):
        return sorted(r["slug"] for r in b.backlinks(slug))

    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", TWO_DAYS))
        assert {s: link_targets(b, s) for s in TWO_DAYS_TARGETS} == TWO_DAYS_TARGETS
        assert (linked_from(b, "daily/2026_11_22"), linked_from(b, "journals/2026_11_22")) == (["notes/Plan"], ["journals/2026_11_23"])
        b.delete_page("daily/2026_11_22")
        assert link_targets(b, "notes/Plan")["2026_11_22"] == "journals/2026_11_22"
        assert linked_from(b, "journals/2026_11_22") == ["journals/2026_11_23", "notes/Plan"]
        assert fresh_import_differences(b) == {}
        b.save_page("daily/2026_11_22.md", "- back\n")
        assert {s: link_targets(b, s) for s in TWO_DAYS_TARGETS} == TWO_DAYS_TARGETS
        assert fresh_import_differences(b) == {}
        b.move_page("journals/2026_11_22", "daily/2026_11_22x")  # (a file name no day)
        assert link_targets(b, "journals/2026_11_23")["Nov 22nd, 2026"] == "daily/2026_11_22"
        assert fresh_import_differences(b) == {}
