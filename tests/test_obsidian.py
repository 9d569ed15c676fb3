"""Obsidian vaults as people keep them: aliases, inline and nested tags, tag identity, titles,
links per page (issue 10). In-process Brain on real SQLite files; a few CLI subprocess runs."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from conftest import SHARED, gbrain_in_process as gbrain  # what the commands do, not the process: no process per call (~0.25 CPU-s each)
from gbrain.core.brain import Brain
from gbrain.page.markdown import aliases_from_frontmatter, parse_page
from gbrain.errors import NotFound
from gbrain.sync.importer import import_tree


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))
    return root


def fresh_rows(tree: Path, db: Path) -> dict:
    """Derived rows of a fresh import of ``tree``, keyed by slug (to compare with an edited brain)."""
    with Brain.open(db) as b:
        import_tree(b, tree)
        return derived_rows(b)


def derived_rows(b: Brain) -> dict:
    c = b.conn
    return {
        "pages": sorted(tuple(r) for r in c.execute("SELECT slug, title, title_key, type FROM pages")),
        "tags": sorted(tuple(r) for r in c.execute("SELECT p.slug, t.tag, t.tag_key, t.inline FROM tags t JOIN pages p ON p.id = t.page_id")),
        "aliases": sorted(tuple(r) for r in c.execute("SELECT p.slug, a.alias, a.alias_key, a.loose_key FROM aliases a JOIN pages p ON p.id = a.page_id")),
        "links": sorted(
            tuple(r)
            for r in c.execute("SELECT p.slug, l.kind, l.target, q.slug, l.count, l.forms FROM links l JOIN pages p ON p.id = l.from_page_id LEFT JOIN pages q ON q.id = l.to_page_id")
        ),
    }


# ---- aliases ------------------------------------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "fm, want",
    [
        ({"aliases": ["Templater", "tp"]}, ["Templater", "tp"]),
        ({"aliases": "Templater"}, ["Templater"]),
        ({"alias": "One"}, ["One"]),
        ({"aliases": ["A"], "alias": ["B", "a"]}, ["A", "B"]),  # both keys; 'a' repeats 'A'
        ({"aliases": [1, None, {"x": 1}, ["n"], " padded ", "", "Café"]}, ["padded", "Café"]),
        ({"aliases": None}, []),
        ({"aliases": 42}, []),
        ({}, []),
    ],
)
def test_aliases_from_frontmatter(fm, want):
    assert aliases_from_frontmatter(fm) == want


ALIAS_VAULT = {
    "plugins/Templater Plugin.md": "---\naliases: [Templater, tp]\n---\n# Templater Plugin\n\nTemplates.\n",
    "people/Ana Lima.md": "---\nalias: Ana\n---\nAna works on [[Templater]] and [[tp|the plugin]].\n",
    "notes/Daily.md": "Met [[Ana]] today; see [[Nobody]].\n",
}


@pytest.mark.engine_free
def test_alias_names_a_page_in_commands(tmp_path):
    tree = write(tmp_path / "v", ALIAS_VAULT)
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        assert b.resolve_slug("Templater")["slug"] == "plugins/Templater Plugin"
        assert b.resolve_slug("templater")["slug"] == "plugins/Templater Plugin"  # case-insensitive
        assert b.resolve_slug("ana")["slug"] == "people/Ana Lima"
        # links written with an alias resolve to the page
        [link] = b.links("people/Ana Lima")  # one linked page, by two aliases
        assert (link["to_slug"], link["count"], link["forms"]) == ("plugins/Templater Plugin", 2, ["[[Templater]]", "[[tp]]"])
        assert [r["slug"] for r in b.backlinks("Ana")] == ["notes/Daily"]
        with pytest.raises(NotFound) as e:
            b.resolve_slug("tpp")
        assert e.value.suggestions == ["tp"] and "did you mean: tp" in str(e.value)
    r = gbrain("--db", str(tmp_path / "b.db"), "get", "Templater")
    assert r.returncode == 0 and r.stdout == ALIAS_VAULT["plugins/Templater Plugin.md"].encode()


@pytest.mark.engine_free
def test_exact_slug_wins_over_alias(tmp_path):
    tree = write(tmp_path / "v", {"Ana.md": "the page named Ana\n", "people/Ana Lima.md": "---\nalias: Ana\n---\nx\n"})
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        assert b.resolve_slug("Ana")["slug"] == "Ana"


@pytest.mark.engine_free
def test_alias_shared_by_two_pages_is_ambiguous(tmp_path):
    tree = write(tmp_path / "v", {"a.md": "---\naliases: [Same]\n---\n", "b.md": "---\naliases: [same]\n---\n"})
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        with pytest.raises(NotFound, match="alias of 2 pages"):
            b.resolve_slug("SAME")


@pytest.mark.engine_free
def test_alias_edits_keep_links_equal_to_fresh_import(tmp_path):
    """Adding, changing and removing an alias re-resolves the links that use it, like a fresh import."""
    tree = write(tmp_path / "v", ALIAS_VAULT)
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        steps = [
            ("people/Ana Lima", "---\nalias: Annie\n---\nAna works on [[Templater]].\n"),
            ("plugins/Templater Plugin", "# Templater Plugin\n\nno aliases now\n"),
            ("notes/Daily", "Met [[Annie]] and [[Ana]].\n"),
            ("plugins/Templater Plugin", "---\naliases:\n  - Templater\n---\nback\n"),
        ]
        for slug, text in steps:
            b.put(slug, text)
            (tree / (slug + ".md")).write_bytes(text.encode())
            assert derived_rows(b) == fresh_rows(tree, tmp_path / f"fresh{len(list(tmp_path.iterdir()))}.db")
        b.delete_page("plugins/Templater Plugin")
        (tree / "plugins/Templater Plugin.md").unlink()
        assert derived_rows(b) == fresh_rows(tree, tmp_path / "fresh-last.db")


@pytest.mark.engine_free
def test_a_name_of_no_letter_or_digit_links_as_in_a_fresh_import(tmp_path):
    """Trial 31: `[[📚📚📚]]` written before the note `📚📚📚.md` existed stayed dangling when the
    note came (watch, one batch; or any later put): links are re-resolved by the loose key of
    their target, and a name of emoji or punctuation only has none (''), so none was. Likewise
    an alias of such a name, and the note's deletion and rename."""
    tree = write(tmp_path / "v", {"notes/linker.md": "Books [[📚📚📚]], [[★]] and [[❤️|love]].\n"})
    n = 0

    def same() -> None:
        nonlocal n
        n += 1
        assert derived_rows(b) == fresh_rows(tree, tmp_path / f"fresh{n}.db")

    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        steps = [
            ("books/📚📚📚", "Shelf.\n"),
            ("misc/star", "---\naliases: [★]\n---\nA star.\n"),
            ("misc/heart", "---\naliases: ['❤️']\n---\nLove.\n"),
            ("misc/star", "no alias now\n"),
        ]
        for slug, text in steps:
            b.put(slug, text)
            (tree / (slug + ".md")).parent.mkdir(parents=True, exist_ok=True)
            (tree / (slug + ".md")).write_bytes(text.encode())
            same()
        assert {x["slug"] for x in b.backlinks("books/📚📚📚")} == {"notes/linker"}
        assert {x["slug"] for x in b.backlinks("misc/heart")} == {"notes/linker"}
        b.delete_page("books/📚📚📚")
        (tree / "books/📚📚📚.md").unlink()
        same()


def test_an_upgraded_brain_relinks_names_of_no_letter_or_digit(tmp_path, db_path):
    """A brain made before (SQLite v41 / Postgres v42) resolved `[[★]]` to any page whose name
    has no letter or digit (`📚📚📚`: both loose keys ''), and left `[[📚📚📚]]` dangling when the
    page came later: on open those links are resolved again, equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write(tmp_path / "v", {"notes/linker.md": "Books [[📚📚📚]], [[★]].\n", "books/📚📚📚.md": "Shelf.\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        pid = c.execute("SELECT id FROM pages WHERE slug = 'books/📚📚📚'").fetchone()[0]
        with b.transaction():
            c.execute("UPDATE links SET to_page_id = CASE target WHEN '★' THEN ? ELSE NULL END", (pid,))
            _rewind(c, pg._symbol_links, dbmod._m42_symbol_links)
    with Brain.open(db_path) as b:
        got = dict(b.conn.execute("SELECT l.target, p.slug FROM links l LEFT JOIN pages p ON p.id = l.to_page_id").fetchall())
        assert got == {"📚📚📚": "books/📚📚📚", "★": None}
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_obsidian_hub_get_templater(tmp_path):
    hub = SHARED / "corpora" / "obsidian-hub"
    if not hub.exists():
        pytest.skip("obsidian-hub corpus not available")
    src = hub / "02 - Community Expansions/02.05 All Community Expansions/Plugins/templater-obsidian.md"
    text = src.read_bytes()
    tree = tmp_path / "v"
    (tree / src.relative_to(hub).parent).mkdir(parents=True, exist_ok=True)
    (tree / src.relative_to(hub)).write_bytes(text)
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
    r = gbrain("--db", str(tmp_path / "b.db"), "get", "Templater")
    assert r.returncode == 0, r.stderr
    assert r.stdout == text


@pytest.mark.engine_free
def test_upgrade_from_v3_rederives_like_a_fresh_import(tmp_path):
    """A brain made before aliases and tag identity (schema v4, before v5) gets the same rows as a fresh import."""
    tree = write(tmp_path / "v", ALIAS_VAULT)
    want = fresh_rows(tree, tmp_path / "fresh.db")
    db = tmp_path / "old.db"
    fresh_rows(tree, db)
    c = sqlite3.connect(db)
    c.executescript(
        "DROP TABLE aliases; DROP INDEX idx_tags_tag_key; ALTER TABLE tags DROP COLUMN tag_key; ALTER TABLE tags DROP COLUMN inline;"
        "ALTER TABLE links DROP COLUMN count; ALTER TABLE links DROP COLUMN forms;"
        "UPDATE links SET to_page_id = NULL; UPDATE pages SET title = 'stale', title_key = 'stale'; PRAGMA user_version = 4;"
    )
    c.close()
    with Brain.open(db) as b:
        assert derived_rows(b) == want


# ---- inline tags and tag identity -----------------------------------------------------------

CASES = SHARED / "cases"


def copy_case(name: str, dst: Path) -> Path:
    import shutil

    src = CASES / name / "input"
    if not src.exists():
        pytest.skip(f"../shared/cases/{name} not available")
    shutil.copytree(src, dst, symlinks=True)
    return dst


INLINE = """---
tags: [Founder]
---
# Heading #inhead
Text #alpha and #area/sub, not a#b, not #1984, yes #y1984. `#code` [#link](x.md) [[#h]] http://x.com/#frag
#founder again, #café, #日本語。 done <span>#html</span> <!-- #comment --> %% #obscomment %%
$$ #math $$ #trailing/

```
#fenced
```

    #indented

- item #inlist
> quote #inquote
<!--
#htmlblock
-->
%% open
#incomment
%%
#after
"""


@pytest.mark.engine_free
def test_inline_tags_as_obsidian_reads_them():
    page = parse_page(INLINE, "x.md")
    assert page.tags == ["Founder"]
    assert page.inline_tags == ["inhead", "alpha", "area/sub", "y1984", "founder", "café", "日本語", "trailing", "inlist", "inquote", "after"]
    # one tag per identity: the frontmatter spelling wins over the inline 'founder'
    assert page.all_tags == ["Founder", "inhead", "alpha", "area/sub", "y1984", "café", "日本語", "trailing", "inlist", "inquote", "after"]
    assert page.render() == INLINE


@pytest.mark.engine_free
def test_inline_and_nested_tags_in_list_tags_and_lint(tmp_path):
    tree = write(tmp_path / "v", {"a.md": INLINE, "b.md": "Just #area here.\n", "c.md": "Deeper #area/sub/x and #Area/Sub.\n", "d.md": "#areas is another tag\n"})
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        import_tree(b, tree)
        assert [p["slug"] for p in b.list_pages(tag="area")] == ["a", "b", "c"]  # area/sub and area/sub/x count
        assert [p["slug"] for p in b.list_pages(tag="area/sub")] == ["a", "c"]
        assert [p["slug"] for p in b.list_pages(tag="#ALPHA")] == ["a"]
        assert b.tags("c") == ["area/sub/x", "Area/Sub"]
        t = {r["tag"].casefold(): r for r in b.all_tags()}
        assert t["area/sub"]["pages"] == 2 and t["area/sub"]["spellings"] == {"Area/Sub": 1, "area/sub": 1}
        # inline-only tag: untag says so and writes nothing
        before = (tree / "b.md").read_bytes()
        with pytest.raises(Exception, match="inline") as e:
            b.untag("b", "AREA")
        assert type(e.value).__name__ == "BadInput"
        assert b.get_text("b").encode() == before
        # tag of a tag the page has inline: no change; a new one goes to the frontmatter
        assert b.tag("b", "Area").changed is False
        assert b.tag("b", "new").changed is True and b.get_text("b") == "---\ntags:\n- new\n---\nJust #area here.\n"
    r = gbrain("--db", str(db), "call", "list", json.dumps({"tag": "ALPHA"}))
    assert r.returncode == 0 and [p["slug"] for p in json.loads(r.stdout)] == ["a"]
    r = gbrain("--db", str(db), "untag", "b", "area")
    assert r.returncode == 2 and b"inline" in r.stderr
    r = gbrain("--db", str(db), "tags")
    assert r.returncode == 0 and "area/sub  2  area/sub, Area/Sub" in r.stdout.decode()  # (a tie: the normalised spelling first, slugs.tag_spelling_rank)
    r = gbrain("--db", str(db), "lint", "--json")
    assert r.returncode in (0, 1) and "area/sub" in r.stdout.decode().casefold()


@pytest.mark.engine_free
def test_case_tags_case(tmp_path):
    tree = copy_case("tags-case", tmp_path / "v")
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        import_tree(b, tree)
        for spelling in ("founder", "Founder", "FOUNDER"):
            assert [p["slug"] for p in b.list_pages(tag=spelling)] == ["people/ana-lima", "people/bruno-okafor"]
        assert b.tags("people/ana-lima") == ["Founder", "Investor"]  # stored as written
        founder = next(t for t in b.all_tags() if t["tag"].casefold() == "founder")
        assert founder["pages"] == 2 and founder["spellings"] == {"Founder": 1, "founder": 1}
    r = gbrain("--db", str(db), "call", "list", json.dumps({"tag": "FOUNDER"}))
    assert [p["slug"] for p in json.loads(r.stdout)] == ["people/ana-lima", "people/bruno-okafor"]
    out = tmp_path / "out"
    assert gbrain("--db", str(db), "export", "--dir", str(out)).returncode == 0
    assert (out / "people/ana-lima.md").read_bytes() == (tree / "people/ana-lima.md").read_bytes()


@pytest.mark.engine_free
def test_case_tags_nfc_nfd(tmp_path):
    import unicodedata

    tree = copy_case("tags-nfc-nfd", tmp_path / "v")
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        import_tree(b, tree)
        for spelling in ("café", unicodedata.normalize("NFD", "café"), "CAFÉ"):
            assert [p["slug"] for p in b.list_pages(tag=spelling)] == ["notes/espresso", "notes/flat-white"]
        cafe = [t for t in b.all_tags() if unicodedata.normalize("NFC", t["tag"]) == "café"]
        assert len(cafe) == 1 and cafe[0]["pages"] == 2 and len(cafe[0]["spellings"]) == 2
    out = tmp_path / "out"
    assert gbrain("--db", str(db), "export", "--dir", str(out)).returncode == 0
    for f in ("notes/espresso.md", "notes/flat-white.md"):
        assert (out / f).read_bytes() == (tree / f).read_bytes()  # each spelling exported as written


@pytest.mark.engine_free
def test_inline_tag_edits_equal_fresh_import(tmp_path):
    tree = write(tmp_path / "v", {"a.md": "Has #one and #Two.\n", "b.md": "---\ntags: [two]\n---\n#three\n"})
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        for slug, text in [("a", "Now #two and #Three/sub.\n"), ("b", "---\ntags: [Three]\n---\nno inline\n")]:
            b.put(slug, text)
            (tree / f"{slug}.md").write_bytes(text.encode())
        b.tag("a", "extra")
        (tree / "a.md").write_bytes(b.get_text("a").encode())
        assert derived_rows(b) == fresh_rows(tree, tmp_path / "fresh.db")


# ---- titles -------------------------------------------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "text, title",
    [
        ("---\ntitle: From FM\n---\n# Heading\n", "From FM"),
        ("\n\n# Opening *H1*\n\nbody\n", "Opening H1"),
        ("Setext\n======\n", "Setext"),
        ("Intro first.\n\n# Later H1\n", "My Note"),
        ("## An H2 opens\n\n# H1 below\n", "My Note"),
        ("---\ntitle: ''\n---\n# Opening\n", "Opening"),
        ("%% comment %%\n\n# After a comment\n", "My Note"),
        ("", "My Note"),
    ],
)
def test_title_rule(text, title):
    assert parse_page(text, "notes/My Note.md").title == title


@pytest.mark.engine_free
def test_footer_h1_is_not_a_title_on_obsidian_hub(tmp_path):
    hub = SHARED / "corpora" / "obsidian-hub"
    if not hub.exists():
        pytest.skip("obsidian-hub corpus not available")
    for rel, title in [("05 - Concepts/PARA.md", "PARA"), ("00 - Start here.md", "00 - Start here")]:
        page = parse_page((hub / rel).read_text("utf-8"), rel)
        assert page.title == title


# ---- links per page ----------------------------------------------------------------------------


@pytest.mark.engine_free
def test_links_and_backlinks_list_each_page_once(tmp_path):
    import unicodedata

    nfd = unicodedata.normalize("NFD", "Café notes")
    tree = write(
        tmp_path / "v",
        {
            "Note.md": "---\naliases: [Nota]\n---\n# Note\n\n## Heading\n\ntext ^block-id\n",
            "src.md": "See [[Note]], [[note#Heading]], [[Note#^block-id|that line]], ![[Note]], [n](Note.md), [[Nota]] and [[Gone]] twice [[Gone]].\n"
            "Also [[Café notes]].\n",
            f"{nfd}.md": "Links [[Note]].\n",
        },
    )
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        out = b.links("src")
        assert [(x["to_slug"], x["count"]) for x in out] == [("Note", 6), (None, 2), ("Café notes", 1)]
        assert out[0]["forms"] == ["[[Note]]", "[[note#Heading]]", "[[Note#^block-id]]", "![[Note]]", "(Note.md)", "[[Nota]]"]
        back = b.backlinks("Note")
        assert [(x["slug"], x["count"]) for x in back] == [("Café notes", 1), ("src", 6)]
        # an NFD file name: listed by its NFC slug, found by the NFC-typed name
        assert unicodedata.is_normalized("NFC", back[0]["slug"])
        assert b.resolve_slug("Café notes")["path"] == f"{nfd}.md"
    r = gbrain("--db", str(tmp_path / "b.db"), "backlinks", "Note")
    assert r.returncode == 0 and r.stdout.decode().count("src") == 1


def _canvas_vault(tree: Path) -> Path:
    for p, text in [
        ("en/Plugins/Canvas.md", "# Canvas\n"),
        ("ko/플러그인/Canvas.md", "# Canvas\n"),
        ("en/Editing/Embed.md", "See [[Canvas]].\n"),
        ("ko/편집/Embed.md", "See [[Canvas]].\n"),
        ("de/Bearbeiten/Embed.md", "See [[Canvas]].\n"),
        ("Top.md", "See [[Canvas]].\n"),
    ]:
        f = tree / p
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    return tree


def test_a_shared_file_name_resolves_to_the_page_nearest_the_link(tmp_path, db_path):
    """A multi-language vault (obsidian-help: en/Plugins/Canvas.md, ko/플러그인/Canvas.md, …):
    ``[[Canvas]]`` in an ``en/`` page is the ``en/`` Canvas, in a ``ko/`` page the ``ko/`` one — the
    candidate sharing the most leading folders with the linking page, then the shortest path
    (was: the shortest path only, so 26 links from en/ pages went to other languages). Adding the
    nearer page later moves the link there, as a fresh import would."""
    tree = _canvas_vault(tmp_path / "v")
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        to = lambda src: [l["to_slug"] for l in b.links(src)]
        assert to("en/Editing/Embed") == ["en/Plugins/Canvas"]
        assert to("ko/편집/Embed") == ["ko/플러그인/Canvas"]
        assert to("Top") == to("de/Bearbeiten/Embed") == ["ko/플러그인/Canvas"]  # no shared folder: the shortest path, as before
        b.put("de/Plugins/Canvas", "# Canvas\n")  # a nearer page for the de/ link appears
        assert to("de/Bearbeiten/Embed") == ["de/Plugins/Canvas"] and to("en/Editing/Embed") == ["en/Plugins/Canvas"]
        assert {l["slug"] for l in b.backlinks("en/Plugins/Canvas")} == {"en/Editing/Embed"}


def test_opening_a_brain_of_the_old_link_rule_resolves_its_links_again(tmp_path, db_path):
    """SQLite v12 / Postgres v9: links stored by the shortest-path-only rule are resolved again
    when the brain is opened by this version (what a fresh import gives; verify is clean)."""
    from gbrain.sync.scan import scan_tree
    from gbrain.sync.verify import verify_tree

    tree = _canvas_vault(tmp_path / "v")
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        ko = b.conn.execute("SELECT id FROM pages WHERE slug = ?", ("ko/플러그인/Canvas",)).fetchone()[0]
        pg = getattr(b.conn, "dialect", "sqlite") == "postgres"
        with b.transaction():  # as the old rule stored it
            b.conn.execute("UPDATE links SET to_page_id = ? WHERE target = 'Canvas'", (ko,))
            if pg:
                b.conn.execute("DELETE FROM gbrain_schema WHERE version >= 9")  # (and the later ones: max(version) is the schema)
        if not pg:
            b.conn.execute("PRAGMA user_version = 11")
        assert not verify_tree(b, scan_tree(tree), deep=True)["ok"]
    with Brain.open(db_path) as b:
        assert [l["to_slug"] for l in b.links("en/Editing/Embed")] == ["en/Plugins/Canvas"]
        assert [l["to_slug"] for l in b.links("Top")] == ["ko/플러그인/Canvas"]
        assert verify_tree(b, scan_tree(tree), deep=True)["ok"]


def test_a_suggestion_is_a_name_that_then_works(tmp_path, db_path):
    """did-you-mean never offers a name that is then refused: an alias several pages share, or
    one that a file name elsewhere takes, is suggested as its page's full slug."""
    from gbrain.errors import Ambiguous

    tree = _canvas_vault(tmp_path / "v")
    (tree / "zh").mkdir()
    (tree / "zh" / "画布.md").write_text("---\naliases: [Canvas]\n---\n# 画布\n", encoding="utf-8")
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        with pytest.raises(NotFound) as e:
            b.resolve_slug("canvass-plugin")
        assert e.value.suggestions and "Canvas" not in e.value.suggestions, e.value.suggestions
        for name in e.value.suggestions:
            b.resolve_slug(name)  # each one works
        with pytest.raises(Ambiguous):
            b.resolve_slug("Canvas")


def test_a_name_of_symbols_is_not_near_every_other_such_name(tmp_path, db_path):
    """Trial 31: `get ★` suggested `mine/📚📚📚…` ("did you mean"): both names compare as '' (no
    letter or digit), which difflib calls equal. Such a name is near only itself."""
    tree = write(tmp_path / "v", {"books/📚📚📚.md": "Shelf.\n", "notes/star.md": "Star.\n"})
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        with pytest.raises(NotFound) as e:
            b.resolve_slug("★")
        assert e.value.suggestions in ([], None), e.value.suggestions
        with pytest.raises(NotFound) as e:
            b.resolve_slug("books/📚📚")
        assert "books/📚📚📚" in (e.value.suggestions or []), e.value.suggestions


@pytest.mark.engine_free
def test_link_writes_wiki_links_in_a_wiki_link_vault(tmp_path):
    """`link` in a vault that links with [[…]] appended `[Embed files](../Linking%20…md)`: it now
    writes the vault's form, `[[Name]]` when no other page has the name, `[[folder/Name]]` when
    one does, `|Title` when the title is not the name; it resolves to the page meant. A page
    that links with markdown links (or a brain of them) keeps getting markdown links."""
    v = tmp_path / "v"
    for rel, text in {
        "a/Start.md": "# Start\n\nSee [[Other]] and [[Notes]].\n",
        "a/Other.md": "# Other\n",
        "b/Canvas.md": "# Canvas\n",
        "c/Canvas.md": "# Canvas\n",
        "b/Plan.md": "---\ntitle: The plan\n---\nBody\n",
        "b/Notes.md": "# Notes\n\nsee [Start](../a/Start.md)\n",
    }.items():
        (v / rel).parent.mkdir(parents=True, exist_ok=True)
        (v / rel).write_text(text, encoding="utf-8")
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, v)
        b.link("a/Start", "b/Canvas", "the board")
        b.link("a/Start", "b/Plan")
        b.link("a/Other", "a/Start")  # no links of its own: the brain's habit (wiki)
        b.link("b/Notes", "a/Other")  # a page of markdown links
        start, other, notes = b.get_text("a/Start"), b.get_text("a/Other"), b.get_text("b/Notes")
        assert start.endswith("[[b/Canvas]] — the board\n\n[[Plan|The plan]]\n"), start
        assert other.endswith("[[Start]]\n") and notes.endswith("[Other](../a/Other.md)\n"), (other, notes)
        to = {(r[0], r[1]) for r in b.conn.execute(
            "SELECT f.slug, t.slug FROM links l JOIN pages f ON f.id = l.from_page_id JOIN pages t ON t.id = l.to_page_id")}
        assert {("a/Start", "b/Canvas"), ("a/Start", "b/Plan"), ("a/Other", "a/Start"), ("b/Notes", "a/Other")} <= to


ESCAPED_HASH = """#### From \\#Tag

If you track \\#People in notes, list them from #real.

\\#notatag at a line's start, #kept\\#cut and a \\\\#afterslash.
"""


@pytest.mark.engine_free
def test_an_escaped_hash_is_no_tag():
    """trial 60: a backslash-escaped ``\\#`` is no tag in Obsidian (obsidian-hub's Dataview guide
    writes ``From \\#Tag``, ``track \\#People`` to avoid one); mistune hands the escaped ``#`` over
    as text, so gbrain read a tag. An escaped backslash before ``#`` (``\\\\#afterslash``) leaves a
    ``\\`` before the ``#``: no white space before it, no tag (as ``foo#bar``), before and after."""
    page = parse_page(ESCAPED_HASH, "x.md")
    assert page.all_tags == ["real", "kept"]
    assert page.render() == ESCAPED_HASH
    assert page.headings == ["From #Tag"]


@pytest.mark.engine_free
@pytest.mark.parametrize("fast", [True, False], ids=["fastparse", "mistune"])
@pytest.mark.parametrize("text, tags", [
    ("Track \\#People here and #real.\n", ["real"]),  # in text
    ("\\#start of a paragraph #after\n", ["after"]),
    ("## From \\#Tag and #head\n\ntext\n", ["head"]),  # in a heading
    ("- item \\#nolist and #yeslist\n- [[A]] \\#no2\n", ["yeslist"]),  # in list items
    ("| a | b |\n|---|---|\n| \\#notcell | #cell [[L]] |\n", ["cell"]),  # in a table cell
    ("> \\#quoted and #q2\n", ["q2"]),  # in a quote
    ("a \\\\ #spaced, b \\\\#glued\n", ["spaced"]),  # an escaped backslash: the '#' is read as written
    ("`\\#incode #incode2` and\n\n```\n\\#fence #fence2\n```\n\n#out\n", ["out"]),  # code: never a tag
    ("*\\#em* and #tail\n", ["tail"]),
    ("#kept\\#cut\n", ["kept"]),
    ("\\#[[Multi Word]] and #[[Real Ref]]\n", ["Real Ref"]),  # Logseq's form escaped: a link, no tag
    ("Intro.\n\n---\n\n- 2026-01-02: met \\#Nobody with #someone\n", ["someone"]),  # in the timeline
])
def test_an_escaped_hash_is_no_tag_wherever_it_stands(text, tags, fast, monkeypatch):
    """The escape hides a tag in every block kind, on both block parsers (fastparse sends a text
    holding a backslash to mistune's inline parsers); code hides it anyway; the heading text and
    links' contexts keep the ``#`` as a reader reads it."""
    from gbrain.page import markdown

    monkeypatch.setattr(markdown, "FAST_PARSE", fast)
    page = parse_page(text, "x.md")
    assert page.all_tags == tags
    assert page.render() == text


@pytest.mark.engine_free
def test_an_escaped_hash_keeps_heading_text_and_link_context():
    page = parse_page("## From \\#Tag [[X]]\n\nSee [[Y]] \\#People.\n", "x.md")
    assert page.all_tags == []
    assert [(ln.target, ln.context) for ln in page.links] == [("X", "From #Tag X"), ("Y", "See Y #People.")]


@pytest.mark.engine_free
@pytest.mark.parametrize("text, bear", [
    ("\\#not read# #books\n", ["books"]),  # Bear's closed tag escaped: no tag; the next one is
    ("#to read\\# and more\n", ["to"]),  # an escaped closing '#' closes nothing
    ("#to read# \\#nope\n", ["to read"]),
])
def test_an_escaped_hash_under_bears_tag_syntax(text, bear):
    assert parse_page(text, "n.md", tag_syntax="bear").all_tags == bear


@pytest.mark.engine_free
def test_an_escaped_hash_in_a_logseq_page_is_no_tag_link():
    text = "tags:: alpha\n\n- \\#[[Escaped Ref]] and #[[Real Ref]] \\#nope #yes\n"
    page = parse_page(text, "pages/n.md", property_syntax="logseq")
    assert page.all_tags == ["alpha", "Real Ref", "yes"]
    assert [ln.target for ln in page.links] == ["Escaped Ref", "Real Ref", "yes", "alpha"]  # a link still; no nope


ESCAPED_TREE = {
    "Dataview.md": "#### From \\#Tag\n\nTrack \\#People with #dataview.\n",
    "Dice.md": "from \\#dnd/npc, \\#dnd/pc in a table #dice\n",
    "Plain.md": "A #People note.\n",
    "Coded.md": "`\\#incode` only #coded\n",
}


def test_a_brain_made_before_drops_its_escaped_hash_tags_on_open(tmp_path, db_path):
    """A brain made before (SQLite v72 / Postgres v77) holds the tags the escape hid
    (``Tag``, ``People``, ``dnd/npc``): on open the pages whose text holds ``\\#`` are derived again
    (only they: a page without one keeps a row nobody derived), and `tags`, `list --tag`, search
    read the new rows; equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    write(tmp_path / "v", ESCAPED_TREE)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        assert b.tags("Dataview") == ["dataview"] and b.tags("Dice") == ["dice"]
        c = b.conn
        with b.transaction():
            ids = {r[0]: r[1] for r in c.execute("SELECT slug, id FROM pages")}
            for slug, tag in (("Dataview", "Tag"), ("Dataview", "People"), ("Dice", "dnd/npc"), ("Dice", "dnd/pc")):
                c.execute("INSERT INTO tags(page_id, tag, tag_key, inline) VALUES (?, ?, ?, 1)", (ids[slug], tag, tag.lower()))
            c.execute("UPDATE pages SET title = 'untouched' WHERE slug = 'Plain'")
            _rewind(c, pg._escaped_hashes, dbmod._m72_escaped_hashes)
        assert "people" in {t.lower() for t in b.tags("Dataview")}
    r = gbrain("--db", str(db_path), "tags", "--json")
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert b.tags("Dataview") == ["dataview"] and b.tags("Dice") == ["dice"] and b.tags("Coded") == ["coded"]
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'Plain'").fetchone()[0] == "untouched"
        with b.transaction():
            b.conn.execute("UPDATE pages SET title = 'Plain' WHERE slug = 'Plain'")
        assert fresh_import_differences(b) == {}
    assert [p["slug"] for p in json.loads(gbrain("--db", str(db_path), "list", "--tag", "people", "--json").stdout)] == ["Plain"]
    none = gbrain("--db", str(db_path), "list", "--tag", "dnd/npc", "--json")
    assert (none.returncode, json.loads(none.stdout)) == (0, []) and b"no page has tag 'dnd/npc'" in none.stderr
    tags = {t["tag"]: t["pages"] for t in json.loads(gbrain("--db", str(db_path), "tags", "--json").stdout)}
    assert tags == {"People": 1, "dataview": 1, "dice": 1, "coded": 1}
    found = gbrain("--db", str(db_path), "search", "People", "--json")
    assert found.returncode == 0 and b'"Dataview"' in found.stdout  # the word is still text: search finds it


def test_a_brain_with_no_escaped_hash_parses_nothing_on_upgrade(tmp_path, db_path, monkeypatch):
    """The upgrade selects its pages in one query; a brain with no ``\\#`` parses no page."""
    from test_obsidian_trial import _rewind

    from gbrain.page import markdown
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    write(tmp_path / "v", {"Plain.md": "A #People note with a \\ backslash and a # alone.\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        with b.transaction():
            _rewind(b.conn, pg._escaped_hashes, dbmod._m72_escaped_hashes)
    calls = []
    real = markdown.parse_page
    monkeypatch.setattr(markdown, "parse_page", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    with Brain.open(db_path) as b:
        assert b.tags("Plain") == ["People"]
    assert calls == []


def test_escaping_a_hash_by_an_edit_drops_the_tag_and_equals_a_fresh_import(tmp_path, db_path):
    """Incremental == fresh: a put that escapes a tag's ``#`` drops the tag, one that unescapes it
    brings it back; each state equals a fresh import of the exported tree."""
    from gbrain.sync.verify import fresh_import_differences

    with Brain.open(db_path, create=True):
        pass
    for text, tags in (("Track #People here.\n", ["People"]), ("Track \\#People here.\n", []), ("Track \\\\#People, #People.\n", ["People"])):
        r = gbrain("--db", str(db_path), "put", "notes/track", input=text)
        assert r.returncode == 0, r.stderr
        with Brain.open(db_path) as b:
            assert b.tags("notes/track") == tags
            assert fresh_import_differences(b) == {}
