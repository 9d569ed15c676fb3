"""Page-model bugs an Obsidian user trial found (2026-12-02): an impossible date dropped the whole
frontmatter, footnotes were read as links, the singular ``tag:`` property was ignored, inline
``$…$`` math made tags. Each keeps the round trip byte-exact and a fresh import equal to the
incremental one."""
from __future__ import annotations

import json

import pytest

from gbrain.core.brain import Brain
from gbrain.page.markdown import load_frontmatter, parse_page
from gbrain.sync.importer import import_tree

from conftest import write_tree


write = write_tree


# ---- 1. a scalar that looks like a date but is none ---------------------------------------

BAD_DATE = "---\ncreated: 2024-02-30\ntags: [project, q1]\naliases: [Feb Alias]\n---\nBody.\n"


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "yaml, key, kept",
    [
        ("created: 2024-02-30", "created", "2024-02-30"),
        ("date: 2024-13-45", "date", "2024-13-45"),
        ("at: 2024-02-30T10:00:00Z", "at", "2024-02-30T10:00:00Z"),
        ("at: 2024-01-05 25:00", "at", "2024-01-05 25:00"),
        ("at: !!timestamp 2024-02-30", "at", "2024-02-30"),
    ],
)
def test_an_impossible_date_is_kept_as_text_and_the_rest_loads(yaml, key, kept):
    fm, err = load_frontmatter(f"---\n{yaml}\ntags: [a]\nok: 2024-01-05\n---\n")
    assert err is None
    assert fm == {key: kept, "tags": ["a"], "ok": "2024-01-05"}


@pytest.mark.engine_free
def test_an_impossible_date_keeps_tags_aliases_and_warns():
    page = parse_page(BAD_DATE, "notes/Feb.md")
    assert page.render() == BAD_DATE
    assert page.frontmatter_error is None
    assert page.tags == ["project", "q1"] and page.aliases == ["Feb Alias"]
    assert page.frontmatter["created"] == "2024-02-30"
    assert any("2024-02-30" in w and "not a real date" in w for w in page.warnings)


@pytest.mark.engine_free
def test_an_impossible_date_in_a_brain(tmp_path):
    tree = write(tmp_path / "v", {"notes/Feb.md": BAD_DATE, "x.md": "See [[Feb Alias]].\n"})
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        assert b.resolve_slug("Feb Alias")["slug"] == "notes/Feb"
        assert b.tags("notes/Feb") == ["project", "q1"]
        row = b.conn.execute("SELECT frontmatter, frontmatter_error FROM pages WHERE slug = 'notes/Feb'").fetchone()
        assert json.loads(row[0])["created"] == "2024-02-30" and row[1] is None
        assert [r["slug"] for r in b.backlinks("notes/Feb")] == ["x"]
        from gbrain.core.lint import lint

        found = [f for f in lint(b, checks=["frontmatter_errors"])["items"]]
        assert [(f["slug"], f["message"]) for f in found] == [("notes/Feb", "frontmatter created: '2024-02-30' is not a real date (kept as text)")]


@pytest.mark.engine_free
def test_not_real_dates_of_a_json_view():
    from gbrain.core.lint import not_real_dates

    fm = {"a": "2024-02-30", "b": "2024-01-05", "c": "2024-01-05T10:00:00", "d": "2024-13-45", "e": "2024-02-30 notes", "f": 2024, "g": "x"}
    assert not_real_dates(fm) == [("a", "2024-02-30"), ("d", "2024-13-45")]


# ---- 4. inline math hides tags ----------------------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "text, tags",
    [
        ("Energy $a #mathtag$ here #real\n", ["real"]),
        ("Two $x$ and $y #m2$ then #after\n", ["after"]),
        ("Display $$ #d1 $$ and #ok\n", ["ok"]),
        ("costs $5 and #budget $10 a month\n", ["budget"]),  # a closing $ after a space is none
        ("$ #notmath$ opens with a space: #t2\n", ["notmath", "t2"]),
        ("$a #x $ closes after a space\n", ["x"]),
        ("- item $k #inlist$ #li\n", ["li"]),
        ("> quote $q #inquote$\n", []),
        ("`$code #c$` #k\n", ["k"]),
        ("line one $a\n#nextline$ b\n", ["nextline"]),  # inline math does not span lines
    ],
)
def test_inline_math_hides_tags(text, tags):
    page = parse_page(text, "m.md")
    assert page.render() == text
    assert page.inline_tags == tags


@pytest.mark.engine_free
def test_inline_math_rule_is_mistunes_with_obsidians_closing():
    import mistune.plugins.math as m

    from gbrain.page.markdown import INLINE_MATH_PATTERN

    mistune_branch = r"\$(?!\$)(?!\s)(?P<math_text>(?:[^$\\\n]|\\.)+?)\$(?!\d)"
    assert mistune_branch in m.INLINE_MATH_PATTERN
    assert INLINE_MATH_PATTERN == mistune_branch.replace("(?P<math_text>", "(?:").replace(r"+?)\$", r"+?)(?<!\s)\$")


# ---- 3. the singular ``tag:`` property ------------------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "yaml, tags",
    [
        ("tag: project", ["project"]),
        ("tag: a, b", ["a", "b"]),
        ("tag: [a, '#b']", ["a", "b"]),
        ("tag:\n  - a\n  - b", ["a", "b"]),
        ("tags: [a]\ntag: [b, a]", ["a", "b"]),
        ("tag:", []),
    ],
)
def test_singular_tag_key_is_read_like_tags(yaml, tags):
    text = f"---\n{yaml}\n---\nBody.\n"
    page = parse_page(text, "t.md")
    assert page.render() == text
    assert page.tags == tags


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "yaml, added, removed",
    [
        ("tag: project", "tag: project, new", "tag: project"),
        ("tag: [project]", "tag: [project, new]", "tag: [project]"),
        ("tag:\n  - project", "tag:\n  - project\n  - new", "tag:\n  - project"),
    ],
)
def test_tag_and_untag_edit_the_existing_singular_key(tmp_path, yaml, added, removed):
    text = f"---\n{yaml}\nother: 1\n---\nBody.\n"
    tree = write(tmp_path / "v", {"t.md": text})
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        assert b.tags("t") == ["project"]
        b.tag("t", "new")
        got = b.conn.execute("SELECT frontmatter_raw FROM pages WHERE slug = 't'").fetchone()[0]
        assert got == f"---\n{added}\nother: 1\n---\n"
        assert b.tags("t") == ["project", "new"]
        b.untag("t", "new")
        got = b.conn.execute("SELECT frontmatter_raw FROM pages WHERE slug = 't'").fetchone()[0]
        assert got == f"---\n{removed}\nother: 1\n---\n"
        b.untag("t", "project")
        assert b.tags("t") == []
        got = b.conn.execute("SELECT frontmatter_raw FROM pages WHERE slug = 't'").fetchone()[0]
        assert "tags" not in got
        from gbrain.sync.verify import fresh_import_differences

        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_tag_edits_with_both_keys(tmp_path):
    text = "---\ntags: [a]\ntag: b\n---\nBody.\n"
    tree = write(tmp_path / "v", {"t.md": text})
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        assert b.tags("t") == ["a", "b"]
        b.tag("t", "c")
        assert b.tags("t") == ["a", "b", "c"]
        b.untag("t", "b")
        b.untag("t", "a")
        assert b.tags("t") == ["c"]
        raw = b.conn.execute("SELECT frontmatter_raw FROM pages WHERE slug = 't'").fetchone()[0]
        assert raw.count("tag") == 1


# ---- 2. footnotes are no links -------------------------------------------------------------------


def _targets(text: str) -> list[str]:
    return [ln.target for ln in parse_page(text, "f.md").links]


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "text, targets",
    [
        ("A claim.[^1]\n\n[^1]: Roadmap\n", []),
        ("A claim.[^note]\n\n[^note]: meaningful!\n", []),
        ("脚注[^1]\n\n[^1]: これは脚注です。\n", []),
        ("A claim.[^1]\n\n[^1]: see [[Roadmap]]\n", ["Roadmap"]),
        ("A claim.[^1]\n\n[^1]: see [the plan](plan.md) and #fntag\n", ["plan"]),
        ("A.[^1]\n\n[^1]: first line\n    more with [[Deep]]\n", ["Deep"]),
        ("- item [^1]\n\n  [^1]: Roadmap\n", []),
        ("> q [^1]\n>\n> [^1]: Roadmap\n", []),
        # a link reference definition is still one
        ("See [the plan][p].\n\n[p]: plan.md\n", ["plan"]),
        ("[^1] and [x](y.md)\n", ["y"]),
    ],
)
def test_footnotes_are_not_links_but_links_inside_them_are(text, targets):
    page = parse_page(text, "f.md")
    assert page.render() == text
    assert _targets(text) == targets


@pytest.mark.engine_free
def test_footnote_text_keeps_its_tags():
    page = parse_page("A claim.[^1]\n\n[^1]: see #fntag here\n", "f.md")
    assert page.inline_tags == ["fntag"]


@pytest.mark.engine_free
def test_footnotes_in_a_brain(tmp_path):
    tree = write(tmp_path / "v", {
        "Roadmap.md": "# Roadmap\n",
        "a.md": "A claim.[^1]\n\n[^1]: Roadmap\n",
        "b.md": "B claim.[^1]\n\n[^1]: see [[Roadmap]] for zanzibarian detail\n",
    })
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        assert [r["slug"] for r in b.backlinks("Roadmap")] == ["b"]
        from gbrain.search.keyword import search

        hits = search(b.conn, "zanzibarian")
        assert [h["slug"] for h in hits] == ["b"]
        from gbrain.sync.verify import fresh_import_differences

        assert fresh_import_differences(b) == {}


# ---- roll-out: an existing brain's derived rows are re-derived ----------------------------------

TRIAL_VAULT = {
    "Roadmap.md": "# Roadmap\n",
    "notes/Feb.md": BAD_DATE,
    "notes/foot.md": "A claim.[^1]\n\n[^1]: Roadmap\n",
    "notes/singular.md": "---\ntag: project\n---\nBody.\n",
    "notes/math.md": "Energy $a #mathtag$ here #real\n",
    "notes/plain.md": "Links [[Feb Alias]] and [[Roadmap]].\n",
}


def _set_back(b, step_sqlite: int, step_pg: int) -> None:
    """Give the trial's pages the rows the code before the fixes stored (a frontmatter that did
    not load, no tags or aliases, a footnote as a link), and set the schema version back."""
    c = b.conn
    rm = c.execute("SELECT id FROM pages WHERE slug = 'Roadmap'").fetchone()[0]
    with b.transaction():
        for slug in ("notes/Feb", "notes/foot", "notes/singular", "notes/math"):
            pid = c.execute("SELECT id FROM pages WHERE slug = ?", (slug,)).fetchone()[0]
            c.execute("UPDATE pages SET title = 'old', search_aliases = '', search_words = '' WHERE id = ?", (pid,))
            c.execute("DELETE FROM tags WHERE page_id = ?", (pid,))
            c.execute("DELETE FROM aliases WHERE page_id = ?", (pid,))
        c.execute("UPDATE pages SET frontmatter = '{}', frontmatter_error = 'frontmatter YAML does not load: day is out of range for month' WHERE slug = 'notes/Feb'")
        foot = c.execute("SELECT id FROM pages WHERE slug = 'notes/foot'").fetchone()[0]
        c.execute("INSERT INTO links(from_page_id, to_page_id, kind, target, target_name, context, count, forms) VALUES (?, ?, 'markdown', 'Roadmap', 'roadmap', 'A claim.', 1, '[\"(Roadmap)\"]')", (foot, rm))
        c.execute("UPDATE links SET to_page_id = NULL WHERE target = 'Feb Alias'")
        # a page the fixes cannot change is not parsed again (its stale title stays)
        c.execute("UPDATE pages SET title = 'untouched' WHERE slug = 'notes/plain'")
        if getattr(c, "dialect", "sqlite") == "postgres":
            c.execute("DELETE FROM gbrain_schema WHERE version >= %d" % step_pg)
        else:
            c.execute(f"PRAGMA user_version = {step_sqlite - 1}")


def test_upgrade_rederives_the_pages_the_fixes_change(tmp_path, db_path):
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write(tmp_path / "v", TRIAL_VAULT)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        _set_back(b, dbmod.MIGRATIONS.index(dbmod._m17_obsidian_trial) + 1, next(v for v, f in pg._PY_STEPS.items() if f is pg._trial_pages))
    with Brain.open(db_path) as b:
        assert [r["slug"] for r in b.backlinks("Roadmap")] == ["notes/plain"]
        assert b.resolve_slug("Feb Alias")["slug"] == "notes/Feb"
        assert b.tags("notes/singular") == ["project"] and b.tags("notes/math") == ["real"]
        assert b.tags("notes/Feb") == ["project", "q1"]
        diff = fresh_import_differences(b)
        # only the page left stale on purpose differs (on Postgres its search vectors too, from that title, and so the totals)
        on_pg = getattr(b.conn, "dialect", "sqlite") == "postgres"
        assert set(diff) == {"pages"} | ({"pg_pages", "pg_totals"} if on_pg else set()), diff
        assert {r[0] for k in ("pages", "pg_pages") if k in diff for rows in diff[k].values() for r in rows} == {"notes/plain"}, diff
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'notes/plain'").fetchone()[0] == "untouched"
        with b.transaction():
            b.conn.execute("UPDATE pages SET title = 'plain' WHERE slug = 'notes/plain'")
            assert dbmod.rederive_trial_pages(b.conn) == 3  # (notes/Feb has no frontmatter error now)
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_fix_safe_renames_a_tag_under_the_singular_key(tmp_path):
    from gbrain.core.lint import lint

    tree = write(tmp_path / "v", {"a.md": "---\ntag: [Founder, x]\n---\nA\n", "b.md": "---\ntags: [founder]\n---\nB\n", "c.md": "---\ntags: founder\n---\nC\n"})
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, tree)
        r = lint(b, checks=["tag_duplicates"], fix_safe=True)
        assert [(f["slug"], f["to"]) for f in r["fixed"]] == [("a", ["founder", "x"])] and r["skipped"] == []
        assert b.conn.execute("SELECT frontmatter_raw FROM pages WHERE slug = 'a'").fetchone()[0] == "---\ntag: [founder, x]\n---\n"


# ---- 5. links inside an inline %% comment (trial5, 2026-12-03) -----------------------------

@pytest.mark.engine_free
@pytest.mark.parametrize("text, targets", [
    # trial: `lint` said "Alpha links to 'Secret', which is no page" for a link in a comment
    ("See [[Beta]] and %%[[Secret]] #hidden%% done.\n", ["Beta"]),
    ("A %%[t](secret.md)%% ok [[X]] and %%![[Y]]%%.\n", ["X"]),
    # one left open runs on into the next blocks (as it hides tags), until a %% closes it
    ("a %% open\n\npara [[Z]]\n\nclose %% [[W]]\n", ["W"]),
    # a %% in code, a comment block's own %% lines and a link label open none
    ("x `%%` [[V]]\n\n%%\n[[Q]]\n%%\n\n[a %% b](r.md) [[S]]\n", ["V", "r", "S"]),
    ("# H %%\n\n[[U]] %% [[T]]\n", ["T"]),
    # trial (obsidian-help "Basic formatting syntax"): a `%%` code span in a block with no link
    ("Wrap text with `%%`. Comments.\n\nSee [[Obsidian Flavored Markdown]] #tag.\n", ["Obsidian Flavored Markdown"]),
])
def test_links_in_an_inline_comment_are_no_links(text, targets):
    """Obsidian hides ``%% … %%`` inside a line too: a link there is no link (its tags were
    already none). The text scan of link edits (``link_spans``) skips the same links."""
    from gbrain.page.linkedit import link_spans

    page = parse_page(text, "notes/p.md")
    assert [ln.target for ln in page.links] == targets
    assert [sp.target for sp in link_spans(text)] == targets
    assert page.all_tags == (["tag"] if "#tag" in text else [])
    assert page.render() == text


def test_an_inline_comment_link_in_a_brain(tmp_path, db_path):
    """No dead link, no backlink from a comment; the page and a fresh import agree."""
    from gbrain.sync.verify import fresh_import_differences

    write(tmp_path / "v", {"Alpha.md": "See [[Beta]] and %%[[Secret]] #hidden%% done.\n", "Beta.md": "B\n",
                           "Secret.md": "S\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        assert [x["to_slug"] for x in b.links("Alpha")] == ["Beta"]
        assert b.backlinks("Secret") == []
        assert fresh_import_differences(b) == {}


def test_upgrade_drops_the_links_of_inline_comments(tmp_path, db_path):
    """A brain made before v22 (Postgres v22) stored the link of ``%%[[Secret]]%%``: on open, the
    pages whose body holds ``%%`` are derived again (and only they: a stale title elsewhere stays)."""
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write(tmp_path / "v", {"Alpha.md": "See [[Beta]] and %%[[Secret]]%% done.\n", "Beta.md": "B\n",
                                  "Secret.md": "S\n", "plain.md": "[[Beta]]\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        a, s = (c.execute("SELECT id FROM pages WHERE slug = ?", (x,)).fetchone()[0] for x in ("Alpha", "Secret"))
        with b.transaction():
            c.execute("INSERT INTO links(from_page_id, to_page_id, kind, target, target_name, context, count, forms) "
                      "VALUES (?, ?, 'wiki', 'Secret', 'secret', 'See Beta and %%Secret%% done.', 1, '[\"[[Secret]]\"]')", (a, s))
            c.execute("UPDATE pages SET title = 'untouched' WHERE slug = 'plain'")
            _rewind(c, pg._comment_pages, dbmod._m22_inline_comments)
    with Brain.open(db_path) as b:
        assert [r["slug"] for r in b.backlinks("Secret")] == []
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'plain'").fetchone()[0] == "untouched"
        with b.transaction():
            b.conn.execute("UPDATE pages SET title = 'plain' WHERE slug = 'plain'")
        assert fresh_import_differences(b) == {}


def test_a_brain_made_before_takes_the_row_contexts_on_open(tmp_path, db_path):
    """A brain made before v23 (Postgres v23) stored the whole table as the context: on open, the
    pages whose body holds ``|`` are derived again (and only they), and equal a fresh import."""
    from conftest import write_tree
    from test_link_context import TABLE

    from gbrain.core.brain import Brain
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.importer import import_tree
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "v", {"team.md": TABLE, "plain.md": "[[Ana Lima]] again\n", "Ana Lima.md": "A\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        with b.transaction():
            c.execute("UPDATE links SET context = 'the whole table' WHERE target = 'Ana Lima'")
            _rewind(c, pg._table_pages, dbmod._m23_table_rows)
    with Brain.open(db_path) as b:
        ctx = dict(b.conn.execute("SELECT p.slug, l.context FROM links l JOIN pages p ON p.id = l.from_page_id WHERE l.target = 'Ana Lima'").fetchall())
        assert ctx == {"team": "| Ana Lima | CEO | met at the meetup in Lisbon |", "plain": "the whole table"}, ctx
        with b.transaction():
            b.conn.execute("UPDATE links SET context = 'Ana Lima again' WHERE context = 'the whole table'")
        assert fresh_import_differences(b) == {}


def _rewind(c, pg_step, sqlite_migration) -> None:
    """Mark the brain of connection ``c`` as made before a migration (the Postgres version whose
    Python step is ``pg_step``, the SQLite one ``sqlite_migration``): the next open runs it."""
    from conftest import mark_at_version, version_before

    mark_at_version(c, *version_before(sqlite_migration, pg_step))
