"""``gbrain tag`` writes a tag typed decomposed (NFD: pasted from a macOS file name, some
keyboards) in the composed form (NFC), as ``put`` names a page (trial 43: ``tag X économie``
typed NFD wrote a second spelling of the tag three pages had, which Obsidian's tag pane lists
apart); lint's ``tag_duplicates`` names the Unicode form of spellings that look alike. Both engines."""
from __future__ import annotations

import unicodedata

import pytest

from conftest import write_tree
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree


def test_a_decomposed_tag_is_written_composed(tmp_path, db_path):
    write_tree(tmp_path / "v", {"a.md": "---\ntags: [économie]\n---\nx\n", "b.md": "---\ntags: [ville]\n---\ny\n"})
    nfd = unicodedata.normalize("NFD", "économie")
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        ops.run("tag", {"slug": "b", "tag": nfd}, ops.Context(), brain=b)
        text = ops.run("get", {"slug": "b"}, ops.Context(), brain=b)["content"]
        assert text == "---\ntags: [ville, économie]\n---\ny\n" and nfd not in text
        tags = {t["tag"]: t for t in ops.run("tags", {}, ops.Context(), brain=b)}
        assert tags["économie"]["pages"] == 2 and list(tags["économie"]["spellings"]) == ["économie"]


def test_lint_names_the_unicode_form_of_spellings_that_look_alike(tmp_path, db_path):
    nfd = unicodedata.normalize("NFD", "économie")
    write_tree(tmp_path / "v", {"a.md": "---\ntags: [économie]\n---\nx\n", "b.md": f"---\ntags: [{nfd}]\n---\ny\n", "c.md": "z #Économie\n"})
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        f = [x for x in ops.run("lint", {"check": "tag_duplicates"}, ops.Context(), brain=b)["findings"] if x["check"] == "tag_duplicates"]
        # before: "'économie' (1), 'Économie' (1), 'économie' (1)": two of them look the same
        assert f[0]["message"] == (f"one tag spelled 3 ways: '{nfd}' (NFD: e + U+0301) (1), 'Économie' (1), 'économie' (NFC: U+00E9) (1)")


def test_a_tag_the_brain_spells_otherwise_follows_the_brains_spelling(tmp_path, db_path):
    """Trial 48: `brain_tag "Energy"` beside pages tagged `energy` was added as written, silently
    (Obsidian, whose tags match in any case, lists one tag; lint's tag_duplicates flagged it later).
    tag writes the spelling most of the brain's pages use and says so in `note`; a tag no page
    has, or a spelling some page already uses, is written as given."""
    write_tree(tmp_path / "v", {"a.md": "---\ntags: [energy]\n---\nx\n", "b.md": "---\ntags: [energy, Solar]\n---\ny\n",
                                "c.md": "z\n", "d.md": "w #ENERGY\n"})
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        r = ops.run("tag", {"slug": "c", "tag": "Energy"}, ops.Context(), brain=b)
        assert r["changed"] and "'energy'" in r["note"] and "2 pages" in r["note"], r
        assert b.tags("c") == ["energy"] and "Energy" not in b.get_text("c"), b.get_text("c")
        r = ops.run("tag", {"slug": "c", "tag": "ENERGY"}, ops.Context(), brain=b)
        assert not r["changed"]  # it has the tag now, in any spelling
        r = ops.run("tag", {"slug": "a", "tag": "Solar"}, ops.Context(), brain=b)
        assert r["changed"] and "note" not in r and "Solar" in b.get_text("a"), r
        r = ops.run("tag", {"slug": "a", "tag": "Wind"}, ops.Context(), brain=b)
        assert r["changed"] and "note" not in r and "Wind" in b.get_text("a"), r


def test_tag_then_untag_gives_a_page_without_frontmatter_its_bytes_back(db_path):
    """trial 50: ``tag`` made a frontmatter block on a page with none; ``untag`` of that only tag left
    an empty ``---``/``---`` block behind. The block goes when nothing but its fences is left."""
    text = "# Ana\n\nPartner.\n"
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", text)
        ops.run("tag", {"slug": "ana", "tag": "energy"}, ops.Context(), brain=b)
        assert b.get_text("people/ana").startswith("---\n")
        r = ops.run("untag", {"slug": "ana", "tag": "energy"}, ops.Context(), brain=b)
        assert r["changed"] and b.get_text("people/ana") == text
        assert ops.run("tags", {"slug": "ana"}, ops.Context(), brain=b) == []


@pytest.mark.parametrize("text", [
    "---\ntags:\n- \n---\n# Start here\n\nWelcome.\n",  # Obsidian's empty property (obsidian-hub's "00 - Start here")
    "---\ntags:\n---\nBody.\n",  # a key written with no value: the whole block went
    "---\ntags:\ntitle: A\n---\nBody.\n",
    "---\ntags: []\n---\nBody.\n",
    "---\naliases:\ntags:\n  - \n---\nBody.\n",
])
def test_tag_then_untag_keeps_a_tags_key_written_empty(db_path, text):
    """A ``tags`` key the page wrote empty before ``tag`` stays after ``untag`` of that tag, in the
    form it had (the bytes back): untag removed the key, and with it a block holding nothing else.
    A key gbrain added still goes (test_tag_then_untag_gives_a_page_without_frontmatter_its_bytes_back)."""
    with Brain.open(db_path, create=True) as b:
        b.put("notes/start", text)
        r = ops.run("tag", {"slug": "notes/start", "tag": "energy"}, ops.Context(), brain=b)
        assert r["changed"] and b.tags("notes/start") == ["energy"]
        r = ops.run("untag", {"slug": "notes/start", "tag": "energy"}, ops.Context(), brain=b)
        assert r["changed"] and b.get_text("notes/start") == text
        assert b.tags("notes/start") == []


def test_untag_of_the_last_tag_of_a_key_that_held_it_from_the_start_removes_the_key(db_path):
    """A key that never stood empty (imported with its tag) goes with its last tag, as before."""
    with Brain.open(db_path, create=True) as b:
        b.put("notes/a", "---\ntags: [x]\ntitle: A\n---\nBody.\n")
        ops.run("untag", {"slug": "notes/a", "tag": "x"}, ops.Context(), brain=b)
        assert b.get_text("notes/a") == "---\ntitle: A\n---\nBody.\n"
