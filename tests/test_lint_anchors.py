"""lint's dead_anchors and dead_attachments: Obsidian links to a heading or block a page does not
have, and embeds/links of files that are not in the brain (dead_links never saw either: anchors
are cut from a link's target, and attachments are no links)."""
from __future__ import annotations

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree

PAGES = {
    "notes/target.md": "# Target\n\n## First Heading\n\nText. ^blk-1\n\n### Use: links\n\n<a id=\"custom\"></a>\n",
    "notes/src.md": (
        "# Src\n\n## Here\n\n"
        "Good: [[target#First Heading]] ![[target#^blk-1]] [[target#First Heading#Use links]] [[#Here]] "
        "[t](target.md#first-heading) [t](target.md#First%20Heading) [c](target.md#custom) ![[pic.png]] "
        "![a](files/pic.png) [d](../notes/files/doc.pdf) ![[doc.pdf#page=3]] [[nowhere#x]] [w](https://x.org/a.png)\n\n"
        "Bad: [[target#No Such]] ![[target#^nope]] [[#Missing here]] [m](target.md#gone) ![[lost.png]] [p](../files/x.pdf) ![b](img/none.jpg)\n\n"
        "```\n[[target#In Code]] ![[code.png]]\n```\n"
    ),
}


def test_dead_anchors_and_attachments_flag_only_what_is_missing(tmp_path, db_path):
    root = tmp_path / "v"
    for rel, text in PAGES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "notes" / "files").mkdir()
    (root / "notes" / "files" / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    (root / "notes" / "files" / "doc.pdf").write_bytes(b"%PDF-1.4\n\0")
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, root)["ok"]
        r = ops.run("lint", {"check": "dead_anchors,dead_attachments", "limit": 0}, brain=b)
        only = ops.run("lint", {"check": "dead_attachments", "slug": "notes/target"}, brain=b)
    got = sorted((f["check"], f["form"]) for f in r["items"])
    assert got == sorted([
        ("dead_anchors", "[[target#No Such]]"), ("dead_anchors", "![[target#^nope]]"), ("dead_anchors", "[[#Missing here]]"),
        ("dead_anchors", "[m](target.md#gone)"),
        ("dead_attachments", "![[lost.png]]"), ("dead_attachments", "[p](../files/x.pdf)"), ("dead_attachments", "![b](img/none.jpg)"),
    ]), got
    assert all(f["slug"] == "notes/src" for f in r["items"])
    assert only["counts"] == {"dead_attachments": 0}


def test_lint_of_named_pages_runs_the_opt_in_checks_too(tmp_path, db_path):
    """`lint --slug X` left out dead_anchors and dead_attachments (opt-in: brain-wide they read
    every page with a link); for a few named pages they read only those, so they run by default
    there. A folder of more than OPT_IN_NAMED pages, `--since` alone or the whole brain still
    leave them out; naming `check` still runs only what is named."""
    from gbrain.core import lint as lintmod

    root = tmp_path / "v"
    for rel, text in PAGES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, root)["ok"]
        named = ops.run("lint", {"slug": "notes/src", "limit": 0}, brain=b)
        whole = ops.run("lint", {"limit": 0}, brain=b)
        folder = ops.run("lint", {"slug": "notes/", "limit": 0}, brain=b)
        only = ops.run("lint", {"slug": "notes/src", "check": "dead_links", "limit": 0}, brain=b)
        lintmod_max = lintmod.OPT_IN_NAMED
        lintmod.OPT_IN_NAMED = 1
        try:
            many = ops.run("lint", {"slug": "notes/", "limit": 0}, brain=b)
        finally:
            lintmod.OPT_IN_NAMED = lintmod_max
    assert set(lintmod.OPT_IN) <= set(named["checks"]), named["checks"]
    assert named["counts"]["dead_anchors"] == 4 and named["counts"]["dead_attachments"] > 0, named["counts"]
    assert set(lintmod.OPT_IN) <= set(folder["checks"])
    assert not set(lintmod.OPT_IN) & set(whole["checks"])
    assert not set(lintmod.OPT_IN) & set(many["checks"])
    assert only["checks"] == ["dead_links"]


def test_a_block_id_right_after_an_embed_is_an_anchor(tmp_path, db_path):
    """Trial5 (obsidian-help, en "Collaborate on a shared vault": ``![[version-history-collaboration.png]]^version-history-image``,
    embedded by "Version history" as ``![[Collaborate on a shared vault#^version-history-image]]``; 8 such ids in the vault):
    the help vault, written in Obsidian, puts the id right after the embed's ``]]``; lint called the link dead.
    A ``^`` glued to a word is still no block id."""
    root = tmp_path / "v"
    root.mkdir()
    (root / "target.md").write_text("![[pic.png]]^img-id\n\nword^nope\n", encoding="utf-8")
    (root / "src.md").write_text("![[target#^img-id]] [[target#^nope]]\n", encoding="utf-8")
    (root / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, root)["ok"]
        r = ops.run("lint", {"check": "dead_anchors", "limit": 0}, brain=b)
    assert [f["form"] for f in r["items"]] == ["[[target#^nope]]"], r["items"]


def test_backlinks_of_an_attachment_lists_the_notes_that_cite_it(tmp_path, db_path):
    """Researcher trial: `gbrain backlinks papers/smith2024.pdf` answered "no page
    'papers/smith2024.pdf'; did you mean: papers-notes/smith2024" (exit 1), though lint's
    dead_attachments reads the same links: there was no way to ask which notes cite a PDF or
    embed a figure. backlinks of a stored file (its path, or a file name only one file has) lists
    the pages that link to or embed it, found as dead_attachments finds a name (relative, from the
    root, `%20`/`<…>` spellings, a bare `![[name]]`, any case), each once with count and forms;
    a link in code or to another file of that name in another folder is not one."""
    notes = {
        "papers-notes/smith2024.md": "# Smith 2024\n\nPDF: [paper](../papers/smith2024.pdf), again [p](<../papers/smith2024.pdf#page=3>).\n\n"
                                     "![[fig1.png]] ![](../figures/a%20b.png)\n",
        "reading-list.md": "# Reading\n\n- [[PAPERS/Smith2024.PDF]]\n- [fig](<figures/a b.png>) and ![[Fig1.PNG]]\n",
        "other.md": "# Other\n\n`[paper](../papers/smith2024.pdf)`\n\n```\n![[fig1.png]]\n```\n[x](old/smith2024.pdf) ![[nope.png]]\n",
    }
    root = tmp_path / "v"
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for rel in ("papers/smith2024.pdf", "old/smith2024.pdf", "figures/fig1.png", "figures/a b.png"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"%PDF-1.4\n\xe2\xe3" + rel.encode())
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, root)["ok"]
        pdf = ops.run("backlinks", {"slug": "papers/smith2024.pdf"}, brain=b)
        fig = ops.run("backlinks", {"slug": "fig1.png"}, brain=b)  # a name one file has
        ab = ops.run("backlinks", {"slug": "figures/a b.png"}, brain=b)
        old = ops.run("backlinks", {"slug": "old/smith2024.pdf"}, brain=b)
        page = ops.run("backlinks", {"slug": "papers-notes/smith2024"}, brain=b)  # pages as before
    assert [(x["slug"], x["count"], x["forms"]) for x in pdf] == [
        ("papers-notes/smith2024", 2, ["[paper](../papers/smith2024.pdf)", "[p](<../papers/smith2024.pdf#page=3>)"]),
        ("reading-list", 1, ["[[PAPERS/Smith2024.PDF]]"]),
    ], pdf
    assert pdf[0]["title"] == "Smith 2024" and pdf[0]["context"]
    assert [x["slug"] for x in fig] == ["papers-notes/smith2024", "reading-list"], fig
    assert [(x["slug"], x["forms"]) for x in ab] == [("papers-notes/smith2024", ["![](../figures/a%20b.png)"]), ("reading-list", ["[fig](<figures/a b.png>)"])], ab
    assert [x["slug"] for x in old] == ["other"], old
    assert page == []
    import pytest
    from gbrain.errors import Ambiguous

    with Brain.open(db_path) as b:  # a file name two files have: both named, as a short slug two pages end with
        with pytest.raises(Ambiguous, match="'smith2024.pdf' names 2 files: old/smith2024.pdf, papers/smith2024.pdf; give the path"):
            ops.run("backlinks", {"slug": "smith2024.pdf"}, brain=b)


def test_backlinks_of_an_attachment_linked_with_only_its_blanks_encoded(tmp_path, db_path):
    """Trial 41: Obsidian writes a markdown link to `Smith et al (2024).pdf` as
    `[Smith](../papers/Smith%20et%20al%20(2024).pdf)` (only the blanks encoded); dead_attachments
    resolved it, but `backlinks` of the PDF said "(no backlinks)": its SQL prefilter tried the
    name as written and fully quoted (`%28…%29`), never the way Obsidian (or encodeURI) spells it,
    and the link scan lint and backlinks read took no parentheses in a URL (CommonMark takes a
    balanced pair), so such a link was no link: a dead one was not reported either."""
    notes = {
        "notes/a.md": "# A\n\n[Smith](../papers/Smith%20et%20al%20(2024).pdf) and [gone](../papers/Gone%20(1).pdf)\n",
        "notes/b.md": "# B\n\n![](../papers/caf%C3%A9%20(v2).png)\n",  # encodeURI: the accent too, the parentheses not
        "notes/c.md": "# C\n\n[x](../papers/Smith%20et%20al%20%282024%29.pdf) [[café (v2).png]]\n",
    }
    root = tmp_path / "v"
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for rel in ("papers/Smith et al (2024).pdf", "papers/café (v2).png"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"%PDF-1.4\n\xe2\xe3" + rel.encode())
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, root)["ok"]
        pdf = ops.run("backlinks", {"slug": "papers/Smith et al (2024).pdf"}, brain=b)
        png = ops.run("backlinks", {"slug": "café (v2).png"}, brain=b)
        dead = ops.run("lint", {"check": "dead_attachments", "limit": 0}, brain=b)["items"]
    assert [x["slug"] for x in pdf] == ["notes/a", "notes/c"], pdf
    # the parentheses were no link at all to the scan lint reads: a dead one went unreported
    assert [(f["slug"], f["target"]) for f in dead] == [("notes/a", "../papers/Gone (1).pdf")], dead
    assert [x["slug"] for x in png] == ["notes/b", "notes/c"], png


def test_an_accented_attachment_linked_with_only_its_blanks_encoded_and_unlink_of_a_url_in_parentheses(db_path):
    """Review of ff2dec9: Obsidian encodes only the blanks of a link's URL, accents kept
    (`café%20notes.pdf`): no other spelling backlinks tries gives that one (encodeURI quotes the
    accent); and the link scan `unlink` edits with took no parentheses in a URL either: unlink of
    `[Rust](../wiki/Rust_(lang).md)` said it could not find the link text."""
    with Brain.open(db_path, create=True) as b:
        b.save_file("media/Café notes.pdf", b"%PDF-1.4 cafe")
        b.put("notes/a", "# A\n\nSee [paper](../media/Café%20notes.pdf) here.\n")
        b.put("wiki/Rust_(lang)", "# Rust\n\nA language.\n")
        b.put("notes/b", "# B\n\nSee [Rust](../wiki/Rust_(lang).md) and more.\n")
        assert [x["slug"] for x in ops.run("backlinks", {"slug": "media/Café notes.pdf"}, brain=b)] == ["notes/a"]
        assert ops.run("unlink", {"from": "notes/b", "to": "wiki/Rust_(lang)"}, brain=b)["changed"]
        assert b.get_text("notes/b") == "# B\n\nSee Rust and more.\n"


def test_a_dead_attachment_whose_file_moved_names_where_it_went(tmp_path, db_path):
    """Researcher trial: `mv figures img` under watch paired every figure as a move (history rows
    `move` "to img/…"), and lint's dead_attachments then said only "embeds '../figures/a b.png',
    which is no file in the brain" for each path link: the history knew where each went. The
    finding now names the file's new path (`moved_to`, first of `suggestions`) and the link that
    reaches it from the page; an attachment never in the brain has none."""
    from gbrain.sync.engine import SyncEngine

    root = tmp_path / "v"
    (root / "notes").mkdir(parents=True)
    (root / "figures").mkdir()
    (root / "notes" / "paper.md").write_text("# Paper\n\n![](../figures/a%20b.png) ![plot](../figures/plot.svg) ![[fig1.png]] ![[gone.png]]\n",
                                            encoding="utf-8")
    for name in ("a b.png", "plot.svg", "fig1.png"):
        (root / "figures" / name).write_bytes(b"\x89PNG\r\n\x1a\n" + name.encode())
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, root)["ok"]
        SyncEngine(b, root).sync()
        (root / "figures").rename(root / "img")
        SyncEngine(b, root).sync()
        assert b.conn.execute("SELECT COUNT(*) FROM history WHERE kind = 'file' AND op = 'move' AND detail LIKE 'to img/%'").fetchone()[0] == 3
        r = ops.run("lint", {"check": "dead_attachments", "limit": 0}, brain=b)
    got = {f["target"]: f for f in r["items"]}
    assert sorted(got) == ["../figures/a b.png", "../figures/plot.svg", "gone.png"], sorted(got)
    ab, plot = got["../figures/a b.png"], got["../figures/plot.svg"]
    assert ab["moved_to"] == "img/a b.png" and ab["suggestions"][0] == "img/a b.png", ab
    assert "moved to img/a b.png" in ab["message"] and "`../img/a%20b.png`" in ab["action"], ab
    assert plot["moved_to"] == "img/plot.svg" and "`../img/plot.svg`" in plot["action"], plot
    assert got["gone.png"].get("moved_to") is None


def test_a_dead_attachment_by_file_name_whose_file_was_renamed_names_where_it_went(tmp_path, db_path):
    """Trial 31: `![[pic.png]]` found `notes/Assets 📎/pic.png` by its file name (as Obsidian finds
    an attachment, in any folder); the file renamed to `picture 1.png` outside Obsidian left the
    embed dead, and lint said only "which is no file in the brain": the history's move was looked
    for at the page's folder and the root only. A bare name (or a path's end) is looked for among
    the moved files' old paths too; two moved files of that name are no answer."""
    from gbrain.sync.engine import SyncEngine

    root = tmp_path / "v"
    (root / "notes" / "Assets 📎").mkdir(parents=True)
    (root / "a" / "x").mkdir(parents=True)
    (root / "b" / "x").mkdir(parents=True)
    (root / "notes" / "Embedder.md").write_text("image ![[pic.png]], ![[Assets 📎/pic.png]] and ![[dup.png]]\n", encoding="utf-8")
    (root / "notes" / "Assets 📎" / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\npic")
    (root / "a" / "x" / "dup.png").write_bytes(b"\x89PNG\r\n\x1a\nA")
    (root / "b" / "x" / "dup.png").write_bytes(b"\x89PNG\r\n\x1a\nB")
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        assert ops.run("lint", {"check": "dead_attachments"}, brain=b)["items"] == []
        (root / "notes" / "Assets 📎" / "pic.png").rename(root / "notes" / "Assets 📎" / "picture 1.png")
        (root / "a" / "x" / "dup.png").rename(root / "a" / "x" / "dup 1.png")
        (root / "b" / "x" / "dup.png").rename(root / "b" / "x" / "dup 2.png")
        assert eng.sync()["counts"]["moved"] == 3
        r = ops.run("lint", {"check": "dead_attachments", "limit": 0}, brain=b)
        eng.close()
    got = {f["target"]: f for f in r["items"]}
    assert sorted(got) == ["Assets 📎/pic.png", "dup.png", "pic.png"], sorted(got)
    for t in ("pic.png", "Assets 📎/pic.png"):
        assert got[t].get("moved_to") == "notes/Assets 📎/picture 1.png", got[t]
        assert "moved to notes/Assets 📎/picture 1.png" in got[t]["message"], got[t]
    # written as a bare name (Obsidian's shortest form): the new name alone; a path: the new path
    assert "`picture 1.png`" in got["pic.png"]["action"], got["pic.png"]
    assert "`Assets 📎/picture 1.png`" in got["Assets 📎/pic.png"]["action"], got["Assets 📎/pic.png"]
    assert got["dup.png"].get("moved_to") is None, got["dup.png"]


def test_links_in_code_the_text_scan_misses_are_not_reported(db_path):
    """An indented code block (4 spaces, a tab) and a fence inside a quote hide their links from
    the parser, but the text scan written_links reads them: dead_attachments (and dead_anchors)
    reported a dead file or heading in code (review48). Each finding is now checked against
    what the parser reads; the real dead links beside them are still reported."""
    with Brain.open(db_path, create=True) as b:
        b.put("notes/target", "# Target\n\n## H\n")
        b.put("notes/src", "# Src\n\n    ![x](nope.png) [[target#No Code]]\n\n\t[p](gone.pdf)\n\n"
                           "> ```\n> ![[lost-in-quote.png]]\n> ```\n\nReal: ![[lost.png]] [[target#Nope]]\n")
        r = ops.run("lint", {"check": "dead_anchors,dead_attachments", "limit": 0}, brain=b)
    assert sorted((f["check"], f["form"]) for f in r["items"]) == [("dead_anchors", "[[target#Nope]]"), ("dead_attachments", "![[lost.png]]")], r["items"]


def test_backlinks_of_a_file_leave_out_a_link_in_code_the_text_scan_misses(db_path):
    """backlinks of an attachment read links as dead_attachments does: one in an indented code
    block or a fence inside a quote counted as a citation (review48); only the parser's links count."""
    with Brain.open(db_path, create=True) as b:
        b.save_file("img/a.png", b"\x89PNG\r\n")
        b.put("notes/code", "# Code\n\n    ![x](../img/a.png)\n\n> ```\n> ![[a.png]]\n> ```\n")
        b.put("notes/real", "# Real\n\n![x](../img/a.png)\n\n    ![x](../img/a.png)\n")
        got = ops.run("backlinks", {"slug": "img/a.png"}, brain=b)
    assert [(x["slug"], x["count"]) for x in got] == [("notes/real", 1)], got
