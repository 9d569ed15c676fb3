"""A daily-journal Obsidian vault (trial17): what gbrain derives from it equals what Obsidian shows.

- ``tags: journal daily`` (a string property) is two tags in Obsidian, which splits a tags string
  at commas and white space (a tag holds no blank); so is ``tags: "#journal #daily"``.
- ``![[Lisbon sketch.excalidraw]]`` embeds the Excalidraw plugin's drawing note
  ``Lisbon sketch.excalidraw.md``: a link to that page (its backlinks list the embedding note),
  not an attachment; a legacy drawing stored as a plain ``Old.excalidraw`` file is a file the
  link names, no dead link."""
from __future__ import annotations

import pytest

from conftest import write_tree
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.page.markdown import parse_page
from gbrain.sync.importer import import_tree

SKETCH = ("---\n\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n\n---\n==⚠  Switch to EXCALIDRAW VIEW ⚠==\n\n"
          "# Text Elements\nAlfama ^aB3dE9f1\n\n%%\n# Drawing\n```json\n{\"type\":\"excalidraw\"}\n```\n%%\n")
VAULT = {
    "Journal/2026-11-28.md": "---\ntags: journal daily\n---\n# 2026-11-28\n\nThe plan: ![[Lisbon sketch.excalidraw]]\n"
                             "Old one: ![[Old.excalidraw]], lost one: [[Gone.excalidraw]]\n",
    "Journal/2026-11-29.md": "---\ntags: \"#journal #daily, #mood/good\"\n---\nSee [[Lisbon sketch.excalidraw|the sketch]].\n",
    "Projects/Lisbon sketch.excalidraw.md": SKETCH,
    "Projects/Old.excalidraw": "{\"type\": \"excalidraw\", \"elements\": []}\n",
    "plain.md": "---\ntags: [solo]\n---\n[[Journal/2026-11-28]], [[2026-11-29]]\n",
}


@pytest.mark.engine_free
@pytest.mark.parametrize("fm, tags", [
    ("tags: journal daily", ["journal", "daily"]),
    ("tags: \"#journal #daily\"", ["journal", "daily"]),
    ("tags: journal, daily", ["journal", "daily"]),
    ("tags: journal,daily  mood/good", ["journal", "daily", "mood/good"]),
    ("tag: project x", ["project", "x"]),
    ("tags: [journal/daily]", ["journal/daily"]),
])
def test_a_tags_string_is_split_at_commas_and_white_space(fm, tags):
    assert parse_page(f"---\n{fm}\n---\nx\n").tags == tags


@pytest.mark.engine_free
def test_an_excalidraw_embed_is_a_link_to_the_drawing_note():
    p = parse_page("![[Lisbon sketch.excalidraw]] and ![[board.canvas]] and ![[image.png|300]]\n")
    assert [(x.kind, x.target) for x in p.links] == [("embed", "Lisbon sketch.excalidraw")]


def test_a_journal_vault_reads_as_obsidian_shows_it(tmp_path, db_path):
    write_tree(tmp_path / "v", VAULT)
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, tmp_path / "v")["ok"]
        assert b.tags("Journal/2026-11-28") == ["journal", "daily"]
        assert b.tags("Journal/2026-11-29") == ["journal", "daily", "mood/good"]
        assert sorted(r["slug"] for r in b.backlinks("Projects/Lisbon sketch.excalidraw")) == ["Journal/2026-11-28", "Journal/2026-11-29"]
    items = ops.run("lint", {"check": "dead_links,dead_attachments,orphans", "as_of": "2026-12-04"}, ops.Context(db=str(db_path)))["items"]
    got = sorted((f["check"], f["slug"], f.get("target")) for f in items)
    assert got == [("dead_links", "Journal/2026-11-28", "Gone.excalidraw"),  # a legacy drawing file is found; a missing one is told
                   ("orphans", "plain", None)]


def test_untag_and_tag_on_a_space_separated_tags_string(tmp_path, db_path):
    write_tree(tmp_path / "v", VAULT)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
    ctx = ops.Context(db=str(db_path))
    ops.run("untag", {"slug": "Journal/2026-11-28", "tag": "daily"}, ctx)
    ops.run("tag", {"slug": "Journal/2026-11-28", "tag": "lisbon"}, ctx)
    with Brain.open(db_path) as b:
        assert b.tags("Journal/2026-11-28") == ["journal", "lisbon"]
        assert b.get_text("Journal/2026-11-28").startswith("---\ntags: journal, lisbon\n---\n")


def test_a_brain_made_before_takes_the_tags_and_drawing_links_on_open(tmp_path, db_path):
    """A brain made before the fix stored ``journal daily`` as one tag and no link for the
    excalidraw embed: on open, those pages are derived again (only they), and equal a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    write_tree(tmp_path / "v", VAULT)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        c = b.conn
        with b.transaction():
            c.execute("DELETE FROM links WHERE target LIKE '%.excalidraw'")
            d28 = c.execute("SELECT id FROM pages WHERE slug = 'Journal/2026-11-28'").fetchone()[0]
            c.execute("DELETE FROM tags WHERE page_id = ?", (d28,))
            c.execute("INSERT INTO tags(page_id, tag, tag_key, inline) VALUES (?, 'journal daily', 'journal daily', 0)", (d28,))
            c.execute("UPDATE pages SET title = 'untouched' WHERE slug = 'plain'")
            _rewind(c, pg._journal_pages, dbmod._m29_journal_vaults)
    with Brain.open(db_path) as b:
        assert b.tags("Journal/2026-11-28") == ["journal", "daily"]
        assert len(b.backlinks("Projects/Lisbon sketch.excalidraw")) == 2
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'plain'").fetchone()[0] == "untouched"
        with b.transaction():
            b.conn.execute("UPDATE pages SET title = 'plain' WHERE slug = 'plain'")
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
@pytest.mark.parametrize("fm, tags", [
    ("tags: daily, <% tp.date.now(\"YYYY\") %>", ["daily"]),
    ("tags: <% tp.file.folder() %>", []),
    ("tags: [journal, '<% tp.file.folder() %>', 'year/<% tp.date.now(\"YYYY\") %>']", ["journal"]),
    ("tags:\n  - daily\n  - '{{date:YYYY}}'", ["daily"]),
    ("tag: '{{title}} review'", ["review"]),
])
def test_a_template_placeholder_in_the_tags_is_no_tag(fm, tags):
    """A template's tags property may hold what the note it makes will get
    (``<% tp.file.folder() %>``, ``{{date:YYYY}}``): the placeholder is no tag (nor its words)."""
    assert parse_page(f"---\n{fm}\n---\nx\n").tags == tags


def test_a_brain_made_before_drops_the_placeholder_tags_on_open(tmp_path, db_path):
    """A brain made before v30 stored ``<%``, ``tp.file.folder()``, ``%>`` as tags of a template: on
    open, the pages whose frontmatter holds a placeholder are derived again (only they)."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    write_tree(tmp_path / "v", {"Templates/Daily.md": "---\ntags: daily, <% tp.file.folder() %>\n---\n# <% tp.file.title %>\n",
                                "plain.md": "---\ntags: [solo]\n---\nx\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        c = b.conn
        with b.transaction():
            t = c.execute("SELECT id FROM pages WHERE slug = 'Templates/Daily'").fetchone()[0]
            c.execute("DELETE FROM tags WHERE page_id = ?", (t,))
            for junk in ("daily", "<%", "tp.file.folder()", "%>"):
                c.execute("INSERT INTO tags(page_id, tag, tag_key, inline) VALUES (?, ?, ?, 0)", (t, junk, junk))
            c.execute("UPDATE pages SET title = 'untouched' WHERE slug = 'plain'")
            _rewind(c, pg._template_tag_pages, dbmod._m30_template_tags)
    with Brain.open(db_path) as b:
        assert b.tags("Templates/Daily") == ["daily"]
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'plain'").fetchone()[0] == "untouched"
        with b.transaction():
            b.conn.execute("UPDATE pages SET title = 'plain' WHERE slug = 'plain'")
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("op, slug", [("backlinks", "People/Maya Chen"), ("links", "Journal/Busy day")])
def test_backlinks_and_links_cut_at_the_limit_say_so(tmp_path, db_path, op, slug):
    """A person met in more daily notes than the limit (100): `backlinks` printed the first 100 and
    nothing else, so the journal looked shorter than it is; like `list`, a cut list says so on
    stderr (stdout holds the pages only), and a whole one says nothing."""
    from conftest import gbrain_in_process

    days = {f"Journal/2026-11-{d:02d}.md": f"Lunch with [[Maya Chen]] on day {d}.\n" for d in range(1, 6)}
    busy = " ".join(f"[[2026-11-{d:02d}]]" for d in range(1, 6))
    write_tree(tmp_path / "v", {**days, "People/Maya Chen.md": "# Maya Chen\n", "Journal/Busy day.md": busy + "\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
    cut = gbrain_in_process(op, slug, "--limit", "3", "--db", str(db_path))
    assert cut.returncode == 0 and len(cut.stdout.splitlines()) == 3
    assert b"the first 3; --limit 0 lists all" in cut.stderr, cut.stderr
    whole = gbrain_in_process(op, slug, "--db", str(db_path))
    assert len(whole.stdout.splitlines()) == 5 and b"lists all" not in whole.stderr


@pytest.mark.parametrize("op", ["trash", "threads"])
def test_trash_and_threads_cut_at_the_limit_say_so(tmp_path, db_path, op):
    """The other lists with a `limit` (trash, threads) say on stderr when it cut them, as list does."""
    from conftest import gbrain_in_process

    pages = {f"p{i}.md": f"# P{i}\n\n## Open Threads\n- ask about the move 2026-11-0{i}\n" for i in range(1, 4)}
    write_tree(tmp_path / "v", pages)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        for i in range(1, 4):
            b.delete_page(f"p{i}") if op == "trash" else None
    cut = gbrain_in_process(op, "--limit", "2", "--db", str(db_path))
    assert cut.returncode == 0 and len(cut.stdout.splitlines()) == 2, cut
    assert b"the first 2; --limit 0 lists all" in cut.stderr, cut.stderr
    whole = gbrain_in_process(op, "--db", str(db_path))
    assert len(whole.stdout.splitlines()) == 3 and b"lists all" not in whole.stderr


@pytest.mark.engine_free
@pytest.mark.parametrize("text, title, aliases", [
    ("# <% tp.date.now(\"YYYY-MM-DD\") %>\n\nLog\n", "Daily", []),
    ("# {{title}}\n\nMet:: {{date}}\n", "Daily", []),
    ("---\ntitle: '<% tp.file.title %>'\naliases: ['<% tp.date.now(\"dddd\") %>', Today]\n---\n# Day plan\n", "Day plan", ["Today"]),
    ("---\ntitle: Daily template\n---\n# <% tp.file.title %>\n", "Daily template", []),
])
def test_a_template_placeholder_is_no_title_or_alias(text, title, aliases):
    """A template opening with ``# <% tp.date.now("YYYY-MM-DD") %>`` (or ``# {{title}}``, or a
    placeholder ``title:``) was titled by the placeholder, so `list` and `search` showed
    ``<% tp.date.now("YYYY-MM-DD") %>`` where Obsidian shows the file name; a placeholder alias
    named the page. The title falls back as when there is none; such aliases are none."""
    p = parse_page(text, "Templates/Daily.md")
    assert (p.title, p.aliases) == (title, aliases)


def test_a_brain_made_before_retitles_its_templates_on_open(tmp_path, db_path):
    """A brain made before v32 keeps a template's placeholder title and alias: on open, the pages
    whose title or an alias holds a placeholder are derived again (only they)."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    write_tree(tmp_path / "v", {"Templates/Daily.md": "---\naliases: ['<% tp.date.now(\"dddd\") %>']\n---\n# <% tp.date.now(\"YYYY-MM-DD\") %>\n",
                                "plain.md": "# Plain\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tmp_path / "v")
        c = b.conn
        with b.transaction():
            t = c.execute("SELECT id FROM pages WHERE slug = 'Templates/Daily'").fetchone()[0]
            c.execute("UPDATE pages SET title = ? WHERE id = ?", ('<% tp.date.now("YYYY-MM-DD") %>', t))
            c.execute("DELETE FROM aliases WHERE page_id = ?", (t,))
            c.execute("INSERT INTO aliases(page_id, alias, alias_key, loose_key) VALUES (?, ?, ?, ?)",
                      (t, '<% tp.date.now("dddd") %>', '<% tp.date.now("dddd") %>', 'tp-date-now-dddd'))
            c.execute("UPDATE pages SET title = 'untouched' WHERE slug = 'plain'")
            _rewind(c, pg._template_name_pages, dbmod._m32_template_names)
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'Templates/Daily'").fetchone()[0] == "Daily"
        assert b.conn.execute("SELECT COUNT(*) FROM aliases").fetchone()[0] == 0
        assert b.conn.execute("SELECT title FROM pages WHERE slug = 'plain'").fetchone()[0] == "untouched"
        with b.transaction():
            b.conn.execute("UPDATE pages SET title = 'Plain' WHERE slug = 'plain'")
        assert fresh_import_differences(b) == {}
