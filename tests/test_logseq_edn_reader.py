"""A ``config.edn`` Logseq's EDN reader reads is read by gbrain too (review of v78, session 55).

Logseq reads the config with ``clojure.edn/read-string`` (frontend/handler/repo_config.cljs),
which ClojureScript aliases to ``cljs.reader`` → ``cljs.tools.reader.edn``: its whitespace is
JavaScript's ``\\s`` and the comma (a byte-order mark is blank), ``#{…}`` is ``(set …)`` (an
element written twice is no error), ``^meta form`` and ``#:ns{…}`` are read, ``#!`` opens a line
comment, a tagged form is its tag's value. A config it reads must keep its settings in gbrain:
refusing it silently loses the graph's title formats and folders (``journals.DEFAULTS``).
"""

from __future__ import annotations

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
