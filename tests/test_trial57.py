"""Trial 57 (a person migrating Notion, Logseq and Obsidian exports): what gbrain's own writes do to
a page of a Notion export. Such a page is read as Notion's only without frontmatter (its ``Tags:``
line tags it, its relation properties link their pages); ``tag`` added a frontmatter block, so the
page silently lost every tag of its ``Tags:`` line and every relation link (``backlinks`` of the
related page no longer listed it). ``tag`` writes the tag into the ``Tags:`` line instead (or a
``Tags:`` line after the page's property lines), so the page stays Notion's."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import write_tree

ID = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d"
ACME = f"Companies {ID}/Acme {ID}"
REL = f"Company: Acme (../Companies%20{ID}/Acme%20{ID}.md)"


def _brain(tmp_path, db_path, files):
    tree = write_tree(tmp_path / "Export", {f"Companies {ID}/Acme {ID}.md": "# Acme\n", **files})
    b = Brain.open(db_path, create=True)
    import_tree(b, tree)
    return b


@pytest.mark.parametrize("nl", ["\n", "\r\n"])
def test_tag_of_a_notion_page_writes_its_tags_line_and_keeps_its_tags_and_relations(tmp_path, db_path, nl):
    text = f"# Plan{nl}{nl}Status: Done{nl}Tags: infra, q3{nl}{REL}{nl}{nl}Body #later{nl}"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text}) as b:
        slug = f"Wiki {ID}/Plan {ID}"
        assert b.tags(slug) == ["infra", "q3", "later"]
        res = b.tag(slug, "urgent")
        assert res.changed
        assert b.tags(slug) == ["infra", "q3", "urgent", "later"]
        assert b.get_text(slug) == text.replace("Tags: infra, q3", "Tags: infra, q3, urgent")
        assert [r["slug"] for r in b.backlinks(ACME)] == [slug]  # the relation still links Acme
        assert fresh_import_differences(b) == {}


def test_tag_of_a_notion_page_without_a_tags_line_adds_one_after_its_properties(tmp_path, db_path):
    text = f"# Plan\n\nStatus: Done\n{REL}\n\nBody.\n"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text}) as b:
        slug = f"Wiki {ID}/Plan {ID}"
        b.tag(slug, "urgent")
        assert b.get_text(slug) == text.replace(REL + "\n", REL + "\nTags: urgent\n")
        assert b.tags(slug) == ["urgent"]
        assert [r["slug"] for r in b.backlinks(ACME)] == [slug]
        assert fresh_import_differences(b) == {}


def test_tag_of_a_notion_page_without_properties_adds_frontmatter_as_before(tmp_path, db_path):
    text = "# Plan\n\nJust text, see [Acme](../Companies%20" + ID + "/Acme%20" + ID + ".md).\n"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text}) as b:
        slug = f"Wiki {ID}/Plan {ID}"
        b.tag(slug, "urgent")
        assert b.get_text(slug) == "---\ntags:\n- urgent\n---\n" + text
        assert b.tags(slug) == ["urgent"]
        assert [r["slug"] for r in b.backlinks(ACME)] == [slug]


def test_a_frontmatter_put_on_a_notion_page_warns_what_stops_being_read(tmp_path, db_path):
    """``put --frontmatter`` on a Notion export's page writes the block asked for, but with it the
    page is no longer read as Notion's: its ``Tags:`` tags and relation links go. That was silent;
    the answer warns, naming them and the put that takes the block away again."""
    import json

    from conftest import gbrain_in_process

    text = f"# Plan\n\nTags: infra, q3\n{REL}\n\nBody.\n"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text}):
        pass
    slug = f"Wiki {ID}/Plan {ID}"
    r = gbrain_in_process("--db", str(db_path), "--json", "put", slug, "--frontmatter", '{"owner": "Ana"}')
    assert r.returncode == 0, r.stderr
    warnings = json.loads(r.stdout)["warnings"]
    assert len(warnings) == 1 and "Notion" in warnings[0], warnings
    for word in ("infra", "q3", "Acme", '{"owner": null}'):
        assert word in warnings[0], warnings
    r = gbrain_in_process("--db", str(db_path), "put", slug, "--frontmatter", '{"owner": "Bo"}')
    assert r.returncode == 0 and b"Notion" not in r.stderr, r.stderr  # (already not read as Notion's: nothing more lost)
    r = gbrain_in_process("--db", str(db_path), "put", f"Companies {ID}/Acme {ID}", "--frontmatter", '{"owner": "Bo"}')
    assert r.returncode == 0 and b"Notion" not in r.stderr, r.stderr  # (no properties: nothing lost)


def test_lint_names_where_a_tag_to_rename_by_hand_is_written(tmp_path, db_path):
    """lint's ``tag_duplicates`` said to rename ``'#Infra'`` in the text of a Notion page whose
    ``Tags: Infra`` line holds it (the page has no ``#Infra``): it names the line, as untag does."""
    from gbrain.core.lint import lint

    files = {f"Wiki {ID}/Ship {ID}.md": "# Ship\n\nTags: Infra\n\nBody.\n",
             "a.md": "---\ntags: [infra]\n---\nx\n", "b.md": "---\ntags: [infra]\n---\ny\n", "c.md": "Text #Infra here.\n"}
    with _brain(tmp_path, db_path, files) as b:
        item = next(i for i in lint(b, checks=["tag_duplicates"])["items"] if i["check"] == "tag_duplicates")
        action = item["action"]
        assert f"the Notion Tags: line of Wiki {ID}/Ship {ID}" in action, action
        assert "'#Infra' in the text of c → '#infra'" in action, action
        assert f"'#Infra' in the text of Wiki {ID}" not in action, action


@pytest.mark.parametrize("sep", ["\x0c", "\x85", "\u2028"])
def test_tag_of_a_notion_page_whose_property_value_holds_a_unicode_line_separator(tmp_path, db_path, sep):
    """Review of trial 57: ``notion_tag_added`` counted the property lines with ``str.splitlines``,
    which also breaks at a form feed, NEL or U+2028 inside a value (a pasted line separator): the
    ``Tags:`` line's index ran past it (IndexError on a last-line ``Tags:``; the tag added to the
    wrong line, refused as a Conflict). The page's lines are its ``\\n``-ended lines."""
    text = f"# Plan\n\nStatus: a{sep}b\nTags: x"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text, f"Wiki {ID}/Other {ID}.md": f"# Other\n\nStatus: a{sep}b\n\nBody.\n"}) as b:
        slug = f"Wiki {ID}/Plan {ID}"
        assert b.tag(slug, "urgent").changed
        assert b.get_text(slug) == text + ", urgent"
        other = f"Wiki {ID}/Other {ID}"
        assert b.tag(other, "urgent").changed
        assert b.get_text(other) == f"# Other\n\nStatus: a{sep}b\nTags: urgent\n\nBody.\n"
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("nl", ["\n", "\r\n"])
def test_untag_takes_back_a_tag_that_tag_wrote_into_a_notion_tags_line(tmp_path, db_path, nl):
    """Review of trial 57: ``tag`` now writes a Notion page's tag into its ``Tags:`` line, but
    ``untag`` still edited frontmatter only and refused (exit 2, "edit the text to remove it"):
    ``tag X t; untag X t`` no longer gave the page back. untag takes the item out of the line (the
    line with it when it was the only one); a tag written inline as well is still refused."""
    from conftest import gbrain_in_process

    text = f"\ufeff# Plan{nl}{nl}Status: Done{nl}Tags: infra, q3{nl}{REL}{nl}{nl}Body #later{nl}"
    bare = f"# Bare{nl}{nl}Status: Done{nl}{REL}"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text, f"Wiki {ID}/Bare {ID}.md": bare}) as b:
        slug, bare_slug = f"Wiki {ID}/Plan {ID}", f"Wiki {ID}/Bare {ID}"
        b.tag(slug, "urgent")
        b.tag(bare_slug, "urgent")
        b.tag(slug, "later")  # (already inline: unchanged)
    r = gbrain_in_process("--db", str(db_path), "untag", slug, "urgent")
    assert r.returncode == 0, r.stderr
    r = gbrain_in_process("--db", str(db_path), "untag", bare_slug, "URGENT")
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert b.get_text(slug) == text and b.get_text(bare_slug) == bare
        assert b.untag(slug, "INFRA").changed
        assert b.get_text(slug) == text.replace("Tags: infra, q3", "Tags: q3")
        assert b.untag(slug, "q3").changed
        assert b.get_text(slug) == text.replace(f"Tags: infra, q3{nl}", "")
        assert b.tags(slug) == ["later"]
        assert [r["slug"] for r in b.backlinks(ACME)] == sorted([slug, bare_slug])
        assert not b.untag(slug, "q3").changed  # (a retried untag)
        assert fresh_import_differences(b) == {}
        from gbrain.core import history

        assert len(history.versions(b, slug)["versions"]) == 5  # import, tag, 3 untags: every version kept
    r = gbrain_in_process("--db", str(db_path), "untag", slug, "later")  # only inline: refused, named
    assert r.returncode == 2 and b"#later" in r.stderr, r.stderr


def test_the_put_a_notion_warning_names_runs_and_gives_the_page_back(tmp_path, db_path):
    """Review of trial 57: the warning's command quoted the undo JSON in bare single quotes, so a
    key holding ``'`` (``Ana's``) gave a command the shell cannot read. Run as named (shlex), it
    takes the block away and the page is the export's bytes again."""
    import json
    import shlex

    from conftest import gbrain_in_process

    text = f"# Plan\n\nTags: infra, q3\n{REL}\n\nBody.\n"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text}):
        pass
    slug = f"Wiki {ID}/Plan {ID}"
    r = gbrain_in_process("--db", str(db_path), "--json", "put", slug, "--frontmatter", json.dumps({"Ana's owner": "Bo", "x": 1}))
    assert r.returncode == 0, r.stderr
    warning = json.loads(r.stdout)["warnings"][0]
    command = shlex.split(warning.split("`")[1])
    assert command[:3] == ["gbrain", "put", slug], command
    r = gbrain_in_process("--db", str(db_path), *command[1:])
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert b.get_text(slug) == text


@pytest.mark.parametrize("nl", ["\n", "\r\n"])
@pytest.mark.parametrize("value,tagged", [("a,", "a, b"), ("a, ", "a, b"), ("a ,", "a, b"), ("a, ,", "a, b"), (",", "b")])
def test_tag_of_a_notion_tags_line_ending_in_a_comma_writes_one_separator(tmp_path, db_path, nl, value, tagged):
    """Persona trial 57's leftover: a ``Tags:`` line ending in a comma (``Tags: a,``, as a hand edit
    leaves it) took ``gbrain tag X b`` as ``Tags: a,, b``: the new item goes after the last item,
    one ``, `` between (an empty item was never a tag). Untag of the line's last tag still takes
    the line away, and ``tag``/``untag`` give the page back."""
    text = f"# Plan{nl}{nl}Status: Done{nl}Tags: {value}{nl}{REL}{nl}{nl}Body.{nl}"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text}) as b:
        slug = f"Wiki {ID}/Plan {ID}"
        assert b.tag(slug, "b").changed
        assert b.get_text(slug) == text.replace(f"Tags: {value}{nl}", f"Tags: {tagged}{nl}")
        assert b.untag(slug, "b").changed
        left = f"Tags: {tagged.removesuffix('b').removesuffix(', ')}{nl}" if tagged != "b" else ""
        assert b.get_text(slug) == text.replace(f"Tags: {value}{nl}", left)
        if left:
            assert b.untag(slug, "a").changed  # the line's last tag: the line goes
            assert b.get_text(slug) == text.replace(f"Tags: {value}{nl}", "")
        assert b.tags(slug) == [] and [r["slug"] for r in b.backlinks(ACME)] == [slug]
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("nl", ["\n", "\r\n"])
def test_untag_of_the_last_tag_of_a_notion_tags_line_ending_in_a_comma_takes_the_line(tmp_path, db_path, nl):
    """The untag half of the same leftover: ``Tags: a,`` (and ``Tags: a, b,``) as the export or a
    hand edit wrote it."""
    text = f"# Plan{nl}{nl}Status: Done{nl}Tags: a, b,{nl}{REL}{nl}{nl}Body.{nl}"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text}) as b:
        slug = f"Wiki {ID}/Plan {ID}"
        assert b.untag(slug, "b").changed
        assert b.get_text(slug) == text.replace("Tags: a, b,", "Tags: a")
        assert b.untag(slug, "a").changed
        assert b.get_text(slug) == text.replace(f"Tags: a, b,{nl}", "")
        assert b.tags(slug) == [] and [r["slug"] for r in b.backlinks(ACME)] == [slug]
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_the_tag_and_untag_tools_say_a_notion_page_takes_the_tags_line():
    """Persona trial 57's leftover: ``brain_untag`` said "edits the page's frontmatter `tags`" (and
    ``brain_tag`` "Add a tag to a page's frontmatter `tags`") though both edit a Notion export's
    page's ``Tags:`` line. Said within the tool list's budget (tests/test_surfaces.py); the command
    line's help says what untag does with a tag written only inline."""
    from gbrain import operations as ops

    from conftest import gbrain_in_process

    tools = {t["name"]: t["description"] for t in ops.tools_json()}
    assert "Notion `Tags:` line" in tools["brain_tag"], tools["brain_tag"]
    assert "frontmatter" not in tools["brain_untag"] and "brain_tag" in tools["brain_untag"], tools["brain_untag"]
    r = gbrain_in_process("untag", "--help")
    assert r.returncode == 0 and b"Tags:" in r.stdout and b"#tag" in r.stdout and b"brain_" not in r.stdout, r.stdout
    assert b"where `tag` writes it" in r.stdout, r.stdout  # the command, not the TAG argument


def test_untag_refusing_a_notion_tag_also_written_inline_says_where_untag_removes_tags(tmp_path, db_path):
    """Review of the embed/tag landing: a Notion page's tag in its ``Tags:`` line and written
    inline (``#energy``) is refused, but the message said "untag changes only frontmatter",
    untrue since untag edits a Notion ``Tags:`` line too. It names both places now."""
    from gbrain.errors import BadInput

    text = "# Plan\n\nStatus: Done\nTags: energy, q3\n\nBody #energy\n"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text}) as b:
        slug = f"Wiki {ID}/Plan {ID}"
        with pytest.raises(BadInput) as e:
            b.untag(slug, "energy")
        msg = str(e.value)
        assert "#energy" in msg and "changes only frontmatter" not in msg, msg
        assert "Tags: line" in msg, msg
        assert b.get_text(slug) == text


def test_tag_after_a_notion_tags_line_ending_in_a_no_break_space_and_comma_adds_one_item(tmp_path, db_path):
    """Review of the embed/tag landing: ``Tags: a, \\u00a0,`` (a no-break space between the last
    commas, as pasted from a web page) got ``Tags: a, \\u00a0, b``: a blank item kept, since only
    ASCII spaces and tabs were stripped after the last item. Any whitespace is now."""
    text = "# Plan\n\nStatus: Done\nTags: a, \u00a0,\n\nBody.\n"
    with _brain(tmp_path, db_path, {f"Wiki {ID}/Plan {ID}.md": text}) as b:
        slug = f"Wiki {ID}/Plan {ID}"
        assert b.tag(slug, "b").changed
        assert b.get_text(slug) == "# Plan\n\nStatus: Done\nTags: a, b\n\nBody.\n"
        assert sorted(b.tags(slug)) == ["a", "b"]
        assert fresh_import_differences(b) == {}
