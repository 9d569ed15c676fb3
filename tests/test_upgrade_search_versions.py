"""A brain made by a much older gbrain (before v55 / Postgres v58, the link labels) upgrades
through every later search and schema version on open: the labels (v55, written as visible text
since v59 / Postgres v63), the folded names (v56 / v60), the labelled links' index (v57 / v61),
the put's lookups (v58 / v62), the names' folded words at title weight (v63 / v67): the brain then equals a fresh import, and search, the put's twin
check and the spaced-name read work as on a new brain. Both engines (``--engine postgres``)."""
from __future__ import annotations

import pytest

from conftest import assert_upgraded, brain_at_version, write_tree
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import BadInput
from gbrain.search import keyword
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

PAGES = {
    "companies/acme-ventures.md": "# Acme Ventures\n\nA seed-stage investor based in Lisbon.\n",
    "companies/other.md": "# Other Capital\n\nAnother investor in Porto.\n",
    "people/łukasz-nowak.md": "# Łukasz Nowak\n\nPartner at [Acme](../companies/acme-ventures.md).\n",
    "people/lukasz-nowak.md": "# Lukasz Nowak\n\nAnother person, Lukasz Nowak.\n",
    "people/gus-o-brien.md": "# Gus O'Brien\n\nAn engineer.\n",
    "notes/Draft plan /x.md": "# X\n\nA draft.\n",
    "notes/md.md": "# Md\n\nSee [**Sarah** fund](../companies/acme-ventures.md) and [<b>Big</b> &amp; co](../companies/other.md).\n",
    "notes/wide.md": "# Wide\n\n[ｐｏｒｔｏ　ｆｕｎｄ](../companies/other.md), [[Łukasz Nowak|_our_ Łukasz]]\n",
}


def _state(b) -> dict:
    links = sorted((s, k, t, label) for s, k, t, label in b.conn.execute(
        "SELECT p.slug, l.kind, l.target, l.label FROM links l JOIN pages p ON p.id = l.from_page_id"))
    search = {q: [(h["slug"], round(h["score"], 6)) for h in keyword.search(b.conn, q, limit=5)]
              for q in ("Sarah fund", "porto fund", "Łukasz Nowak", "Lukasz Nowak", "our Łukasz", "Łukasz", "Lukasz")}
    return {"links": links, "search": search}


@pytest.mark.pg_empty  # made at the older schema by this test, not a copy of a migrated brain
@pytest.mark.parametrize("sqlite_v, pg_v", [(24, 24), (39, 40), (54, 57)])
def test_a_brain_from_before_the_link_labels_upgrades_through_every_search_version(tmp_path, db_path, sqlite_v, pg_v):
    tree = write_tree(tmp_path / "vault", PAGES)
    with Brain.open(tmp_path / "fresh.db", create=True) as b:  # (the state a new brain gives, SQLite: engines rank alike)
        import_tree(b, tree)
        want = _state(b)
    with brain_at_version(db_path, sqlite_v, pg_v) as b:
        assert import_tree(b, tree)["ok"]
        with b.transaction():  # (as that gbrain stored them: no labels, no folded names)
            b.conn.execute("UPDATE links SET label = ''")
            b.conn.execute("DELETE FROM name_folds")
            b.conn.execute("UPDATE pages SET search_fold_names = ''")  # (v63 / Postgres v67)
    with Brain.open(db_path) as b:
        assert_upgraded(b.conn, sqlite_v, pg_v)
        assert fresh_import_differences(b) == {}
        got = _state(b)
        assert got["links"] == want["links"]
        assert ("notes/md", "markdown", "../companies/acme-ventures", "Sarah fund") in got["links"]
        assert {q: [s for s, _ in hits] for q, hits in got["search"].items()} == {q: [s for s, _ in hits] for q, hits in want["search"].items()}
        assert "companies/acme-ventures" in [s for s, _ in got["search"]["Sarah fund"]]
        assert [h[0] for h in got["search"]["Łukasz Nowak"]][:2] == ["people/łukasz-nowak", "people/lukasz-nowak"]
        assert [h[0] for h in got["search"]["Łukasz"]][:2] == ["people/łukasz-nowak", "people/lukasz-nowak"]  # (v63 / Postgres v67)
        assert [h[0] for h in got["search"]["Lukasz"]][:2] == ["people/lukasz-nowak", "people/łukasz-nowak"]
        ctx = ops.Context(surface="mcp")
        with pytest.raises(BadInput, match="people/gus-o-brien"):
            ops.run("put", {"slug": "people/gus-obrien", "content": "# Gus OBrien\n"}, ctx, brain=b)
        assert b.resolve_slug("notes/Draft plan/x")["slug"] == "notes/Draft plan /x"


NAV = {
    "docs/index.md": "# Docs\n\nStart here.\n",
    "docs/guide/Install.md": "# Install\n\nSteps.\n",
    "docs/TOC.yml": "- name: Docs\n  href: index.md\n  items:\n  - name: Install\n    href: guide/install.md\n  - name: Gone\n    href: gone.md\n",
    "mkdocs.yml": "docs_dir: docs\nnav:\n  - index.md\n  - Guide:\n    - guide/Install.md\n",
}


@pytest.mark.pg_empty  # made at the older schema by this test, not a copy of a migrated brain
@pytest.mark.parametrize("sqlite_v, pg_v", [(39, 40), (60, 64)])
def test_a_brain_from_before_nav_entries_upgrades_to_the_rows_a_fresh_import_gives(tmp_path, db_path, sqlite_v, pg_v):
    """A brain of a gbrain before v61 / Postgres v65 holds its nav files with no ``nav_entries``
    table: the upgrade writes the rows a fresh import writes (backlinks, lint's orphans read them),
    and ``check`` finds them equal to the files' bytes. Both engines."""
    from gbrain.sync.verify import damaged_nav_entries

    tree = write_tree(tmp_path / "vault", NAV)
    cols = "f.path, n.ord, n.path, n.path_key, n.href, n.context, n.form, n.line"
    q = f"SELECT {cols} FROM nav_entries n JOIN files f ON f.id = n.file_id"
    with Brain.open(tmp_path / "fresh.db", create=True) as b:
        import_tree(b, tree)
        want = sorted(tuple(r) for r in b.conn.execute(q))
    assert len(want) == 5
    with brain_at_version(db_path, sqlite_v, pg_v) as b:
        assert import_tree(b, tree)["ok"]
        with b.transaction():  # (that gbrain had no such table)
            b.conn.execute("DROP TABLE nav_entries")
    with Brain.open(db_path) as b:
        assert_upgraded(b.conn, sqlite_v, pg_v)
        assert sorted(tuple(r) for r in b.conn.execute(q)) == want
        assert damaged_nav_entries(b) == []
        assert [x["slug"] for x in b.backlinks("docs/guide/Install")] == ["docs/TOC.yml", "mkdocs.yml"]
        assert fresh_import_differences(b) == {}
        b.delete_file("docs/TOC.yml")  # the trigger came with the upgrade
        assert b.conn.execute("SELECT count(*) FROM nav_entries").fetchone()[0] == 2
