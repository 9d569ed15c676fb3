"""A docs repo (Microsoft Learn, DocFX, MkDocs) links its site's other doc sets by site paths
(``[x](/training/modules/y/)``, ``[x](/powershell/module/adcsdeployment)``): the brain holds none
of those pages, and they are no broken links (trial35: 826 of msdocs-ad-identity's 876 dangling
links, each a lint finding saying "create the page training/…"). A ``/x`` path into a folder the
brain has, or naming a ``.md`` file, is still the brain's own and reported when nothing is there."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.core.lint import lint, render_text
from gbrain.page.links import is_site_path
from gbrain.sync.importer import import_tree

from conftest import write_tree


@pytest.mark.engine_free
@pytest.mark.parametrize("target, site, forms", [
    ("/training/modules/implement-ad-cs/", True, []),
    ("/powershell/module/adcsdeployment", True, []),
    ("/previous-versions/windows/it-pro/cc756101(v=ws.10)#x", True, []),
    ("/docs/missing", False, []),  # the brain's own folder
    ("/Docs/missing", False, []),
    ("/gone/page.md", False, []),  # a file of the brain, moved or deleted
    ("/gone/page.MD#a", False, []),
    ("/gone/page", False, ["(/gone/page.md#a)"]),  # (a stored target has no .md: the written form has)
    ("docs/x", False, []),
    ("//cdn.example.com/x", False, []),
    ("/", False, []),
])
def test_a_site_path_is_one_outside_the_brains_folders(target, site, forms):
    assert is_site_path(target, {"docs", "readme"}, forms) is site


def test_lint_and_the_report_leave_a_docs_sites_own_paths(tmp_path, db_path):
    tree = write_tree(tmp_path / "t", {
        "docs/a.md": "See [training](/training/modules/foo/), [cmdlet](/powershell/module/adcs), [b](/docs/b), "
                     "[gone](/docs/missing), [old](/Gone/b.md) and [rel](../nowhere.md).\n",
        "docs/b.md": "# B\n",
    })
    with Brain.open(db_path, create=True) as b:
        rep = import_tree(b, tree)
        assert rep["links"]["dangling"] == 5 and rep["links"]["site_paths"] == 2
        r = lint(b, checks=["dead_links"], limit=None)
        assert sorted(f["target"] for f in r["items"]) == ["../nowhere", "/Gone/b", "/docs/missing"]
        assert r["counts"]["dead_links"] == 3 and r["notes"]["dead_links_site_paths"] == 2
        assert "2 links to a docs site's own paths outside the brain (/training/modules/foo/)" in render_text(r)
        # a page that comes at such a path is the brain's: the link resolves, as any /x path does
        b.save_page("training/modules/foo.md", "# Foo\n")
        assert [x["slug"] for x in b.backlinks("training/modules/foo")] == ["docs/a"]
        assert lint(b, checks=["dead_links"], limit=None)["notes"].get("dead_links_site_paths") == 1


def test_a_link_ending_with_a_slash_resolves_when_its_page_comes(tmp_path, db_path):
    """``[t](/training/foo/)`` (a docs site's folder URL) was keyed by the empty name after its
    last ``/``: written before its page came it stayed dangling, where a fresh import resolves it
    (incremental ≠ fresh). Its name is its last segment (``foo``); a brain made before (SQLite v49 /
    Postgres v51) gets the key and the link on open."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    with Brain.open(db_path, create=True) as b:
        b.save_page("docs/a.md", "See [t](/training/foo/) and [u](../training/bar/).\n")
        b.save_page("training/foo.md", "# Foo\n")
        b.save_page("training/bar.md", "---\naliases: [Bar/]\n---\n# Bar\n")
        to = dict(b.conn.execute("SELECT l.target, p.slug FROM links l LEFT JOIN pages p ON p.id = l.to_page_id").fetchall())
        assert to == {"/training/foo/": "training/foo", "../training/bar/": "training/bar"}
        assert fresh_import_differences(b) == {}
        with b.transaction():  # as the old key left them
            b.conn.execute("UPDATE links SET target_name = '', to_page_id = NULL")
            b.conn.execute("UPDATE aliases SET loose_key = ''")
            _rewind(b.conn, pg._logseq_graphs, dbmod._m49_logseq_graphs)
    with Brain.open(db_path) as b:
        assert {r[0] for r in b.conn.execute("SELECT to_page_id FROM links")} != {None}
        assert fresh_import_differences(b) == {}
