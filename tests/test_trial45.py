"""Trial 45 (an Obsidian power user's vault): a string of aliases is split at its commas, as
Obsidian reads it, and a footnote definition's first word is searched text, not an address."""
from __future__ import annotations

import pytest

from conftest import write_tree
from gbrain.core.brain import Brain
from gbrain.page.markdown import aliases_from_frontmatter, parse_page
from gbrain.search import keyword
from gbrain.sync.importer import import_tree


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "fm, want",
    [
        ({"aliases": "Apollo, Project Apollo"}, ["Apollo", "Project Apollo"]),
        ({"alias": "SomeTitle,"}, ["SomeTitle"]),  # a trailing comma adds nothing
        ({"aliases": "Vault Home"}, ["Vault Home"]),  # blanks do not split an alias
        ({"aliases": ["a, b"]}, ["a, b"]),  # a list item is one alias as written
        ({"aliases": "x,,X , y"}, ["x", "y"]),
    ],
)
def test_a_string_of_aliases_is_split_at_commas(fm, want):
    assert aliases_from_frontmatter(fm) == want


@pytest.mark.engine_free
def test_a_footnote_definition_is_no_link_reference_definition_for_search():
    from gbrain.search.keyword import search_fields

    page = parse_page("Cheap.[^1]\n\n[^1]: Measured on staging, see [[Bench]].\n[ref]: https://x.org\n", path="a.md")
    body = search_fields(page)["search_body"]
    assert "Measured on staging" in body
    assert "https://x.org" not in body  # a real link reference definition's URL stays unread


VAULT = {
    "Projects/Apollo.md": "---\naliases: Apollo, Project Apollo\n---\n# Apollo\n\nCheap.[^1]\n\n[^1]: Kittenmeasured on staging.\n",
    "People/Dev.md": "Reviewer for [[Project Apollo|the migration]].\n",
}


def test_a_comma_alias_names_the_page_and_resolves_links(tmp_path, db_path):
    write_tree(tmp_path / "v", VAULT)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        assert b.resolve_slug("Project Apollo")["slug"] == "Projects/Apollo"
        assert [r["slug"] for r in b.backlinks("Projects/Apollo")] == ["People/Dev"]
        assert [h["slug"] for h in keyword.search(b.conn, "Kittenmeasured")] == ["Projects/Apollo"]


def test_an_upgraded_brain_splits_its_alias_strings_and_reads_its_footnotes(tmp_path, db_path):
    """A brain made before (SQLite v60 / Postgres v64) holds one alias and a blanked word: on open
    those pages are derived again, equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    write_tree(tmp_path / "v", VAULT)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        with b.transaction():  # as the old page model left it
            pid = b.conn.execute("SELECT id FROM pages WHERE slug = 'Projects/Apollo'").fetchone()[0]
            b.conn.execute("DELETE FROM aliases WHERE page_id = ?", (pid,))
            b.conn.execute("INSERT INTO aliases(page_id, alias, alias_key, loose_key) VALUES (?, 'Apollo, Project Apollo', 'apollo, project apollo', 'apollo-project-apollo')", (pid,))
            b.conn.execute("UPDATE links SET to_page_id = NULL WHERE target = 'Project Apollo'")
            b.conn.execute("UPDATE pages SET search_body = replace(compiled_truth, 'Kittenmeasured', '              '), "
                           "search_aliases = 'Apollo, Project Apollo' WHERE id = ?", (pid,))
            _rewind(b.conn, pg._obsidian_key_pages, dbmod._m60_obsidian_keys)
    with Brain.open(db_path) as b:
        assert b.resolve_slug("Project Apollo")["slug"] == "Projects/Apollo"
        assert [r["slug"] for r in b.backlinks("Projects/Apollo")] == ["People/Dev"]
        assert [h["slug"] for h in keyword.search(b.conn, "Kittenmeasured")] == ["Projects/Apollo"]
        assert fresh_import_differences(b) == {}


# ---- property names Obsidian reads ignoring case: Tags, TAGS, Aliases ----------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "text, tags, aliases",
    [
        ("---\nTags: [alpha, beta]\nAliases: [Foo Bar]\n---\nx\n", ["alpha", "beta"], ["Foo Bar"]),
        ("---\nTAGS: gamma delta\nALIAS: One, Two\n---\nx\n", ["gamma", "delta"], ["One", "Two"]),
        ("---\nTag: solo\n---\nx\n", ["solo"], []),
    ],
)
def test_tags_and_aliases_keys_are_read_ignoring_case(text, tags, aliases):
    page = parse_page(text, path="a.md")
    assert page.tags == tags
    assert page.aliases == aliases


def test_tag_and_untag_edit_the_key_as_written(tmp_path, db_path):
    from gbrain import operations as ops

    write_tree(tmp_path / "v", {"a.md": "---\nTags:\n  - alpha\n---\nx\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        assert b.tags("a") == ["alpha"]
    ctx = ops.Context(db=str(db_path))
    ops.run("tag", {"slug": "a", "tag": "beta"}, ctx)
    with Brain.open(db_path) as b:
        assert b.get_text("a") == "---\nTags:\n  - alpha\n  - beta\n---\nx\n"
    ops.run("untag", {"slug": "a", "tag": "alpha"}, ctx)
    with Brain.open(db_path) as b:
        assert b.get_text("a") == "---\nTags:\n  - beta\n---\nx\n"
        assert b.tags("a") == ["beta"]


def test_an_upgraded_brain_reads_its_capitalised_keys(tmp_path, db_path):
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    write_tree(tmp_path / "v", {"a.md": "---\nTags: [alpha]\nAliases: [Foo Bar]\n---\nx\n", "b.md": "See [[Foo Bar]].\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        with b.transaction():  # as the old page model left it
            b.conn.execute("DELETE FROM tags")
            b.conn.execute("DELETE FROM aliases")
            b.conn.execute("UPDATE links SET to_page_id = NULL")
            b.conn.execute("UPDATE pages SET search_aliases = ''")
            _rewind(b.conn, pg._obsidian_key_pages, dbmod._m60_obsidian_keys)
    with Brain.open(db_path) as b:
        assert b.tags("a") == ["alpha"]
        assert [r["slug"] for r in b.backlinks("a")] == ["b"]
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_lint_fix_respells_a_capitalised_tags_key():
    from gbrain.core.lint import rename_tags_text

    page = parse_page("---\nTags: [Founder, ops]\n---\nx\n", path="a.md")
    assert rename_tags_text(page, {"Founder": "founder"}) == "---\nTags: [founder, ops]\n---\nx\n"


@pytest.mark.engine_free
def test_a_snippet_shows_no_embed_size():
    """``![[Architecture.png|300]]``: the 300 is the image's width, no text Obsidian shows."""
    assert keyword.readable("See ![[Architecture.png|300]] and ![[b.png|640x480]] or [[Note|300]].") == "See Architecture.png and b.png or 300."


# ---- a link's context is what a reader reads: no %% comment, block id or callout marker ----------


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "text, context",
    [
        ("Linearizability is expensive. ^lin\nSee [[Ledger]] and %% [[Secret]] hushword %%.\n", "See Ledger and ."),
        ("> [!warning]- Risk\n> The ledger is big; see [[Ledger]].\n", "Risk The ledger is big; see Ledger."),
        ("Leads [[Apollo]]. Writes runbooks. ^bio\n", "Leads Apollo."),
        ("Spec ^a1\nper [[Ledger]] ^b2\nnext line\n", "Spec per Ledger next line"),
        ("%% open\nstill hidden %% shown [[Ledger]] x\n", "shown Ledger x"),
    ],
)
def test_a_links_context_is_read_text(text, context):
    page = parse_page(text, path="a.md")
    assert [ln.context for ln in page.links] == [context]


def test_an_upgraded_brain_gets_the_read_contexts(tmp_path, db_path):
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    write_tree(tmp_path / "v", {"a.md": "Expensive. ^lin\nSee [[b]] %% hushword %%.\n", "b.md": "b\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        with b.transaction():  # as the old page model left it
            b.conn.execute("UPDATE links SET context = 'Expensive. ^lin See b %% hushword %%.'")
            _rewind(b.conn, pg._read_context_pages, dbmod._m62_read_contexts)
    with Brain.open(db_path) as b:
        assert [r["context"] for r in b.backlinks("b")] == ["See b ."]
        assert fresh_import_differences(b) == {}
