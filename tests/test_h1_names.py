"""A page's first H1 that differs from its title is a name of the page (keyword.h1_name): search
weighs it as it weighs an alias (the alias field, name evidence, the exact-name bonus through
``pages.h1_key``). Microsoft Learn's pages are titled "X in Windows Server" and open with "# X"
(msdocs-ad-identity: 87 of 293 pages). Both engines (``--engine postgres``)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.page.markdown import parse_page
from gbrain.search import keyword
from gbrain.search.keyword import search_fields
from gbrain.sync.importer import import_tree


def _fields(text: str, path: str = "x.md") -> tuple[str, str, str]:
    f = search_fields(parse_page(text, path))
    return f["search_aliases"], f["search_headings"], f["h1_key"]


@pytest.mark.engine_free
def test_the_first_h1_other_than_the_title_is_an_alias_field_name():
    fm = "---\ntitle: Group Policy scope in Windows\n---\n"
    assert _fields(fm + "\n# Group Policy scope\n\n## Links\n\ntext\n") == ("Group Policy scope", "Group Policy scope\nLinks", "group-policy-scope")
    # after the frontmatter's aliases; white space runs one space; only the first H1; it stays a heading too
    assert _fields("---\ntitle: T\naliases: [GP scope]\n---\n# Group   Policy\n# Second\n") == ("GP scope\nGroup Policy", "Group   Policy\nSecond", "group-policy")
    # the title (but for case and punctuation), an alias, a placeholder, or no H1: nothing new
    assert _fields("---\ntitle: Group Policy Scope\n---\n# group policy scope\n") == ("", "group policy scope", "")
    assert _fields("---\ntitle: T\naliases: [GP scope]\n---\n# GP-Scope\n") == ("GP scope", "GP-Scope", "")
    assert _fields("---\ntitle: T\n---\n# {{title}}\n") == ("", "{{title}}", "")
    assert _fields("---\ntitle: T\n---\n## Only a section\n") == ("", "Only a section", "")
    # a page titled by its opening H1 (no frontmatter title): the H1 is the title
    assert _fields("# Opening\n\ntext\n") == ("", "", "")
    # a setext H1 further down, the file name the title
    assert _fields("intro\n\nSetext name\n===\n", "notes/file.md") == ("Setext name", "Setext name", "setext-name")
    # aliases rows (link names) are the frontmatter's only: [[Group Policy scope]] resolves as before
    assert parse_page(fm + "\n# Group Policy scope\n", "x.md").aliases == []


PAGES = {
    "gp/security-filtering.md": "---\ntitle: Security filtering in Windows Server\n---\n\n# GPO link filtering\n\nWhich objects a policy reaches.\n",
    "gp/notes.md": "---\ntitle: Policy notes\n---\n\nGPO link filtering, GPO link filtering and GPO link filtering again.\n",
    "gp/other.md": "---\ntitle: Other\n---\n\nFiltering of links and a GPO.\n",
}


def _hits(b, q):
    return [(h["slug"], h["signals"]) for h in keyword.search(b.conn, q, limit=3)]


def test_search_names_a_page_by_its_h1(tmp_path, db_path):
    """``GPO link filtering`` is the H1 of *Security filtering in Windows Server*: the page is named
    (signal ``alias``, the exact-name bonus), above a page saying the words three times; the query's
    plural and ``query``'s keyword side too. Before: the H1 was a heading (weight 2, no name)."""
    tree = tmp_path / "t"
    for rel, text in PAGES.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        got = _hits(b, "GPO link filtering")
        assert got[0][0] == "gp/security-filtering" and "alias" in got[0][1], got
        top = keyword.search(b.conn, "gpo link filtering", limit=2)
        assert top[0]["score"] >= 1.0 + keyword.EXACT_WEIGHT, top  # (named whole: the exact bonus)
        assert _hits(b, "GPO link filterings")[0][0] == "gp/security-filtering"
        cands = keyword.keyword_candidates(b.conn, "GPO link filtering", limit=3)
        assert cands[0]["id"] == b.conn.execute("SELECT id FROM pages WHERE slug = 'gp/security-filtering'").fetchone()[0], cands


def test_an_h1_edit_rename_and_delete_follow_as_a_fresh_import(tmp_path, db_path):
    """The H1 name is derived from the text on every save: a changed H1 names the page by its new
    words only, an H1 made the title names nothing more, and the brain equals a fresh import."""
    from gbrain.sync.verify import fresh_import_differences

    with Brain.open(db_path, create=True) as b:
        b.put("gp/a", "---\ntitle: Security filtering in Windows Server\n---\n\n# GPO link filtering\n\ntext\n")
        b.put("gp/b", "---\ntitle: Other page\n---\n\nsome words about a zebra\n")
        assert _hits(b, "GPO link filtering")[0][0] == "gp/a"
        b.put("gp/a", "---\ntitle: Security filtering in Windows Server\n---\n\n# WMI zebra filters\n\ntext\n")
        got = _hits(b, "WMI zebra filters")
        assert got[0][0] == "gp/a" and "alias" in got[0][1], got
        assert _hits(b, "GPO link") == []  # (the old H1's words: nowhere now)
        assert b.conn.execute("SELECT h1_key FROM pages WHERE slug = 'gp/a'").fetchone()[0] == "wmi-zebra-filters"
        b.put("gp/a", "---\ntitle: WMI zebra filters\n---\n\n# WMI Zebra Filters\n\ntext\n")
        assert b.conn.execute("SELECT search_aliases, h1_key FROM pages WHERE slug = 'gp/a'").fetchone()[:] in (("", ""), ["", ""])
        assert fresh_import_differences(b) == {}
        b.delete_page("gp/a")
        assert [s for s, _ in _hits(b, "WMI zebra filters")] == ["gp/b"]


def test_v51_derives_again_the_pages_holding_an_h1(tmp_path, db_path):
    """A brain made before v51 (Postgres v53) held the H1 as a heading only: on open the pages that
    may hold an H1 are derived again and the brain equals a fresh import. Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = tmp_path / "t"
    for rel, text in PAGES.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        with b.transaction():  # as the page model before v51 left them
            b.conn.execute("UPDATE pages SET search_aliases = '', h1_key = '' WHERE h1_key <> ''")
            _rewind(b.conn, pg._h1_names, dbmod._m51_h1_names)
        assert "alias" not in _hits(b, "GPO link filtering")[0][1]
    with Brain.open(db_path) as b:
        got = _hits(b, "GPO link filtering")
        assert got[0][0] == "gp/security-filtering" and "alias" in got[0][1], got
        assert fresh_import_differences(b) == {}



def test_v51_derives_again_a_setext_h1_with_crlf_or_cr_line_ends(tmp_path, db_path):
    """v51's line filter (db._H1_LINE) read a setext underline ``===`` only before ``\n``: a page
    with CRLF or CR line ends whose first H1 is setext kept no H1 name after the upgrade while a
    fresh import gives one (incremental != fresh). Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "crlf.md").write_bytes(b"---\r\ntitle: T one\r\n---\r\nintro\r\n\r\nZebra name\r\n===\r\n")
    (tree / "cr.md").write_bytes(b"---\ntitle: T two\n---\nintro\r\rOkapi name\r===\r")
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert sorted(r[0] for r in b.conn.execute("SELECT h1_key FROM pages")) == ["okapi-name", "zebra-name"]
        with b.transaction():  # as the page model before v51 left them
            b.conn.execute("UPDATE pages SET search_aliases = '', h1_key = '' WHERE h1_key <> ''")
            _rewind(b.conn, pg._h1_names, dbmod._m51_h1_names)
    with Brain.open(db_path) as b:
        assert sorted(r[0] for r in b.conn.execute("SELECT h1_key FROM pages")) == ["okapi-name", "zebra-name"]
        assert fresh_import_differences(b) == {}


def test_a_page_synced_to_a_name_its_h1_gives_names_nothing_more(tmp_path, db_path):
    """sync takes a moved file as a rename of its page: the H1 name follows the new path's title
    (``notes/Zebra.md`` opening "intro" holds "# Okapi": a name; moved to ``notes/Okapi.md`` the
    H1 is its title, no name more), as a fresh import derives it. Both engines."""
    import os

    from gbrain.sync.engine import SyncEngine
    from gbrain.sync.verify import fresh_import_differences

    tree = tmp_path / "t"
    (tree / "notes").mkdir(parents=True)
    (tree / "notes" / "Zebra.md").write_text("intro\n\n# Okapi\n\ntext\n")
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, tree)
        eng.bind()
        assert eng.sync()["ok"]
        assert b.conn.execute("SELECT h1_key FROM pages").fetchone()[0] == "okapi"
        os.rename(tree / "notes" / "Zebra.md", tree / "notes" / "Okapi.md")
        assert eng.sync()["counts"]["moved"] == 1
        assert b.conn.execute("SELECT title, h1_key FROM pages").fetchone()[:] in (("Okapi", ""), ["Okapi", ""])
        assert fresh_import_differences(b) == {}
        eng.close()
