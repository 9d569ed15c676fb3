"""Review of session 53's Logseq days (v75 / pg_v80): vaults untouched, incremental == fresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import link_targets, page_titles, write_tree

DEFAULT_CONFIG = (Path(__file__).parent / "data" / "logseq" / "config.edn").read_text(encoding="utf-8")
DASHED = DEFAULT_CONFIG.replace(":hidden []", ':hidden [] :journal/page-title-format "yyyy-MM-dd"')
DATEY = ["2026 Plan", "Q1 2026", "1984", "May 2026 review", "Nov 1th party", "2026-11", "26-13-01", "0000-00-00", "9999-99-99",
         "2026-02-30", "Feb 29th, 2025", "٢٠٢٦-١١-٢٠", "123456789012345678901234567890-1-1"]



@pytest.mark.parametrize("setting", ["auto", "dataview"])
def test_a_vault_with_day_named_pages_and_journals_is_untouched(tmp_path, db_path, setting):
    vault = {".obsidian/app.json": "{}", "pages/2026-11-20.md": "x\n", "journals/2026_11_21.md": "y\n",
             **{f"pages/{t}.md": "z\n" for t in DATEY},
             "hub.md": "[[2026-11-20]] [[Nov 20th, 2026]] [[2026-11-21]] [[Nov 21st, 2026]] [[2026-2-3]] "
                       + " ".join(f"[[{t}]]" for t in DATEY) + "\n"}
    with Brain.open(db_path, create=True) as b:
        b.set_config("property_syntax", setting)
        import_tree(b, write_tree(tmp_path / "v", vault))
        t = page_titles(b)
        assert t["pages/2026-11-20"] == "2026-11-20" and t["journals/2026_11_21"] == "2026_11_21"
        for d in DATEY:
            assert d in t.values()
        to = link_targets(b, "hub")
        assert to["Nov 20th, 2026"] is None and to["Nov 21st, 2026"] is None and to["2026-2-3"] is None
        assert to["2026-11-21"] is None or to["2026-11-21"] == "journals/2026_11_21"
        assert fresh_import_differences(b) == {}
        b.save_page("pages/2026-2-3.md", "new\n")
        assert page_titles(b)["pages/2026-2-3"] == "2026-2-3"
        b.move_page("pages/2026-11-20", "pages/2026-11-22")
        b.delete_page("journals/2026_11_21")
        assert fresh_import_differences(b) == {}


def test_a_graph_keeps_date_like_titles_that_are_no_day(tmp_path, db_path):
    graph = {"logseq/config.edn": DEFAULT_CONFIG, **{f"pages/{t}.md": "- z\n" for t in DATEY},
             "pages/hub.md": "- " + " ".join(f"[[{t}]]" for t in DATEY) + "\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        t = page_titles(b)
        for d in DATEY:
            assert d in t.values(), d
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("order", ["journal_first", "page_first"])
def test_two_pages_naming_one_day_incremental_equals_fresh(tmp_path, db_path, order):
    graph = {"logseq/config.edn": DEFAULT_CONFIG,
             "pages/Plan.md": "- [[2026-11-20]] [[2026_11_20]] [[Nov 20th, 2026]] [[2026-11-2]] [[nov 20th, 2026]] [[2026-2-3]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        first, second = ("journals/2026_11_20.md", "pages/2026-11-20.md")[:: 1 if order == "journal_first" else -1]
        b.save_page(first, "- one\n")
        assert fresh_import_differences(b) == {}
        b.save_page(second, "- two\n")
        assert fresh_import_differences(b) == {}
        b.delete_page(first[:-3])
        assert fresh_import_differences(b) == {}
        b.save_page(first, "- one again\n")
        assert fresh_import_differences(b) == {}
        b.move_page(second[:-3], "pages/2026-2-3")
        assert page_titles(b)["pages/2026-2-3"] == "Feb 3rd, 2026"
        assert link_targets(b, "pages/Plan")["2026-2-3"] == "pages/2026-2-3"
        assert fresh_import_differences(b) == {}
        b.move_page("pages/2026-2-3", "pages/not a day")
        assert link_targets(b, "pages/Plan")["2026-2-3"] is None
        assert fresh_import_differences(b) == {}


def test_a_title_property_made_a_day_and_back(tmp_path, db_path):
    graph = {"logseq/config.edn": DEFAULT_CONFIG, "pages/Foo.md": "- x\n",
             "pages/Plan.md": "- [[2026-2-3]] [[Feb 3rd, 2026]] [[Foo]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        b.save_page("pages/Foo.md", "title:: 2026-02-03\n\n- x\n")
        assert page_titles(b)["pages/Foo"] == "Feb 3rd, 2026"
        assert link_targets(b, "pages/Plan")["2026-2-3"] == "pages/Foo"
        assert fresh_import_differences(b) == {}
        b.save_page("pages/Foo.md", "title:: Feb 3th, 2026\n\n- x\n")
        assert fresh_import_differences(b) == {}
        b.save_page("pages/Foo.md", "- x\n")
        assert link_targets(b, "pages/Plan")["2026-2-3"] is None
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("setting", ["auto", "logseq"])
def test_title_format_edits_keep_incremental_equal_fresh(tmp_path, db_path, setting):
    graph = {"logseq/config.edn": DEFAULT_CONFIG, "pages/2026-11-20.md": "- a\n", "pages/Nov 21st, 2026.md": "- b\n",
             "pages/x.md": "title:: 2026-11-22\n\n- c\n", "journals/2026_11_23.md": "- d\n",
             "pages/Plan.md": "- [[2026-11-20]] [[Nov 21st, 2026]] [[2026-11-22]] [[Nov 23rd, 2026]] [[23.11.2026]] [[Monday, 23.11.2026]]\n"}
    formats = [DASHED, DEFAULT_CONFIG.replace(":hidden []", ':hidden [] :journal/page-title-format "EEEE, dd.MM.yyyy"'),
               DEFAULT_CONFIG.replace(":hidden []", ':hidden [] :journal/page-title-format "dd.MM.yyyy"'),
               DEFAULT_CONFIG.replace(":hidden []", ':hidden [] :journal/page-title-format "yyyy-MM-dd HH:mm Q \'\'\'"'),
               DEFAULT_CONFIG]
    with Brain.open(db_path, create=True) as b:
        b.set_config("property_syntax", setting)
        import_tree(b, write_tree(tmp_path / "g", graph))
        assert fresh_import_differences(b) == {}
        for cfg in formats:
            b.save_file("logseq/config.edn", cfg.encode())
            assert fresh_import_differences(b) == {}, cfg[-200:]


DOTTED = DEFAULT_CONFIG.replace(":hidden []", ':hidden [] :journal/page-title-format "dd.MM.yyyy"')


@pytest.mark.parametrize("name", ["23x11x2026", "2301102026"])
def test_a_link_read_as_a_day_through_a_formats_regex_run_finds_a_journal_coming_later(tmp_path, db_path, name):
    """cljs-time matches a format's punctuation run as a regex: under ``dd.MM.yyyy`` Logseq reads
    ``[[23x11x2026]]`` (and ``[[2301102026]]``) as Nov 23rd, 2026. A fresh import resolves such a
    link to the journal; a journal saved after the link must resolve it too (incremental == fresh)."""
    graph = {"logseq/config.edn": DOTTED, "pages/Plan.md": f"- [[{name}]] [[23.11.2026]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "g", graph))
        b.save_page("journals/2026_11_23.md", "- day\n")
        assert link_targets(b, "pages/Plan") == {name: "journals/2026_11_23", "23.11.2026": "journals/2026_11_23"}
        assert fresh_import_differences(b) == {}
        b.save_page("pages/23.11.2026.md", "- a page of the same day\n")  # (two pages of one day: the tie again)
        assert fresh_import_differences(b) == {}
        b.delete_page("journals/2026_11_23")
        assert fresh_import_differences(b) == {}
        b.delete_page("pages/23.11.2026")
        assert link_targets(b, "pages/Plan") == {name: None, "23.11.2026": None}
        assert fresh_import_differences(b) == {}
