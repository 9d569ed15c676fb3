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
from gbrain.errors import NotFound
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


def _tag_row(b, tag: str) -> dict:
    return next(t for t in ops.run("tags", {}, ops.Context(), brain=b) if t["tag"].lower() == tag.lower() or tag in t.get("spellings", {}))


def _dupes(b) -> list[dict]:
    return [x for x in ops.run("lint", {"check": "tag_duplicates"}, ops.Context(), brain=b)["findings"] if x["check"] == "tag_duplicates"]


def test_one_spelling_of_a_tag_for_tags_tag_and_lint_on_a_tie(tmp_path, db_path):
    """Two spellings of one tag on one page each (``cfo-candidate`` in a page's tags, ``#CFO-Candidate``
    in another's text): ``tags`` showed the smallest by code point (``CFO-Candidate``), ``tag`` wrote
    the first by the engine's ``ORDER BY tag`` (SQLite's binary order: ``CFO-Candidate``; a Postgres
    database's collation may put the lower case first) and lint's ``--fix-safe`` renamed to the
    lower-case one, the normalised form: three answers. Now one rule (``slugs.tag_spelling_rank``):
    the most pages, on a tie the normalised form, then the smallest. Both engines."""
    write_tree(tmp_path / "v", {"a.md": "---\ntags: [cfo-candidate, finance]\n---\n# Ana\n",
                                "c.md": "# Carla\n\nCarla is a candidate too. #CFO-Candidate\n",
                                "d.md": "# Dan\n\nDan, candidate.\n"})
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        assert _tag_row(b, "cfo-candidate")["tag"] == "cfo-candidate"
        r = ops.run("tag", {"slug": "d", "tag": "CFO-candidate"}, ops.Context(), brain=b)
        assert r["changed"] and b.tags("d") == ["cfo-candidate"], (r, b.tags("d"))
        assert "'cfo-candidate'" in r["note"], r
        f = [x for x in _dupes(b) if "cfo-candidate" in x["variants"]]
        assert f[0]["canonical"] == "cfo-candidate", f


def test_tag_writes_the_brains_spelling_over_a_rarer_one_typed(tmp_path, db_path):
    """A user's ``tag X CFO-candidate`` where three pages write ``cfo-candidate`` and one
    ``CFO-candidate`` was written as typed ("a spelling some page already uses"), a spelling
    lint's ``--fix-safe`` renames at once. ``tag`` writes the one ``tags`` shows. Both engines."""
    notes = {f"p{i}.md": "---\ntags: [cfo-candidate]\n---\nx\n" for i in range(3)}
    notes.update({"q.md": "---\ntags: [CFO-candidate]\n---\ny\n", "z.md": "# Zed\n"})
    write_tree(tmp_path / "v", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        r = ops.run("tag", {"slug": "z", "tag": "CFO-candidate"}, ops.Context(), brain=b)
        assert b.tags("z") == ["cfo-candidate"] and "'cfo-candidate'" in r["note"] and "3 pages" in r["note"], r
        assert _tag_row(b, "cfo-candidate")["spellings"] == {"cfo-candidate": 4, "CFO-candidate": 1}


def test_tag_writes_the_form_the_brain_uses_for_a_tag_lint_takes_for_it(tmp_path, db_path):
    """``CFO-candidate`` beside pages tagged ``cfo_candidate`` (another form: ``_`` for ``-``) was
    written as typed: a second tag to Obsidian, which lint's ``tag_duplicates`` then reported as
    one tag spelled two ways and ``--fix-safe`` merged. ``tag`` writes the brain's spelling and
    says so; ``list --tag`` and search's tag filter, which match a tag in any case, find the page
    by it; never across tags that only look alike (``ß``/``ss``). Both engines."""
    write_tree(tmp_path / "v", {"a.md": "---\ntags: [cfo_candidate]\n---\n# Ana\n\nA candidate.\n",
                                "b.md": "# Bruno\n\nAnother candidate. #cfo_candidate\n",
                                "s.md": "---\ntags: [straße-fm]\n---\nz\n",
                                "d.md": "# Dan\n\nDan, candidate.\n"})
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        r = ops.run("tag", {"slug": "d", "tag": "CFO-candidate"}, ops.Context(), brain=b)
        assert b.tags("d") == ["cfo_candidate"] and "'cfo_candidate'" in r["note"], r
        assert not _dupes(b)
        r = ops.run("tag", {"slug": "d", "tag": "cfo-candidate"}, ops.Context(), brain=b)
        assert not r["changed"] and "cfo_candidate" in r["note"], r  # (it has the tag, in the brain's spelling)
        for t in ("cfo_candidate", "CFO_Candidate"):
            listed = {p["slug"] for p in ops.run("list", {"tag": t}, ops.Context(), brain=b)}
            found = {h["slug"] for h in ops.run("search", {"query": "candidate", "tag": t}, ops.Context(), brain=b)}
            assert listed == found == {"a", "b", "d"}, (t, listed, found)
        r = ops.run("tag", {"slug": "d", "tag": "strasse-fm"}, ops.Context(), brain=b)
        assert "strasse-fm" in b.tags("d") and "note" not in r, r  # (a letter apart: another tag, as Obsidian's)


def test_tag_adds_no_second_spelling_to_a_page_that_has_the_tag_in_a_rarer_one(tmp_path, db_path):
    """A page tagged ``cfo_candidate`` where most pages write ``cfo-candidate``: ``tag ann
    cfo-candidate`` wrote ``tags: [cfo_candidate, cfo-candidate]``, one tag twice on one page
    (lint's tag_duplicates counted it once per spelling). The page has the tag already: nothing is
    written, the note names its spelling and lint's ``--fix-safe``, which merges the spellings. Both engines."""
    notes = {f"p{i}.md": "---\ntags: [cfo-candidate]\n---\nx\n" for i in range(2)}
    notes["ann.md"] = "---\ntitle: Ann\ntags: [cfo_candidate]\n---\nAnn.\n"
    write_tree(tmp_path / "v", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        r = ops.run("tag", {"slug": "ann", "tag": "cfo-candidate"}, ops.Context(), brain=b)
        assert not r["changed"] and "'cfo_candidate'" in r["note"] and "--fix-safe" in r["note"], r
        r = ops.run("tag", {"slug": "ann", "tag": "CFO_Candidate"}, ops.Context(), brain=b)  # (the same spelling but for case)
        assert not r["changed"] and "'cfo_candidate'" in r["note"], r
        assert b.get_text("ann") == notes["ann.md"]


def test_a_rarer_spelling_written_only_in_the_text_is_named_as_a_hand_edit(tmp_path, db_path):
    """A page whose rarer spelling is only an inline ``#cfo_candidate`` (most pages write
    ``cfo-candidate``): ``tag bob cfo-candidate`` leaves it as it is, but its note said
    `gbrain lint --fix-safe` writes one spelling everywhere, which edits the tags property only
    (lint's own action: rename by hand). The note names the text's tag and the hand edit. Both engines."""
    notes = {f"p{i}.md": "---\ntags: [cfo-candidate]\n---\nx\n" for i in range(2)}
    notes["bob.md"] = "Bob #cfo_candidate inline.\n"
    write_tree(tmp_path / "v", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        r = ops.run("tag", {"slug": "bob", "tag": "cfo-candidate"}, ops.Context(), brain=b)
        assert not r["changed"] and "'#cfo_candidate'" in r["note"] and "by hand" in r["note"], r
        assert "--fix-safe" not in r["note"], r
        assert b.get_text("bob") == notes["bob.md"]


def test_a_rarer_spelling_in_a_notion_tags_line_is_named_with_that_line(tmp_path, db_path):
    """A Notion export's page whose ``Tags:`` line writes ``cfo_candidate``: ``tag PAGE
    cfo-candidate`` leaves it as it is; the note names the Notion Tags: line (no ``#cfo_candidate``
    is in its text, and lint-fix edits the tags property only), as lint's tag_duplicates does. Both engines."""
    nid = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d"
    notes = {f"p{i}.md": "---\ntags: [cfo-candidate]\n---\nx\n" for i in range(2)}
    notes[f"Companies {nid}/Acme {nid}.md"] = "# Acme\n"
    notes[f"Wiki {nid}/Plan {nid}.md"] = (f"# Plan\n\nStatus: Done\nTags: infra, cfo_candidate\n"
                                          f"Company: Acme (../Companies%20{nid}/Acme%20{nid}.md)\n\nBody\n")
    write_tree(tmp_path / "v", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        slug = f"Wiki {nid}/Plan {nid}"
        r = ops.run("tag", {"slug": slug, "tag": "cfo-candidate"}, ops.Context(), brain=b)
        assert not r["changed"] and "Notion Tags: line" in r["note"] and "#cfo_candidate" not in r["note"], r
        assert b.get_text(slug) == notes[f"Wiki {nid}/Plan {nid}.md"]


def test_a_missed_tag_filter_names_the_tags_as_tags_spells_them(tmp_path, db_path):
    """A tag filter no page has (``list --tag``, search's ``tag``) named the brain's tags and its
    slips in the spelling most pages use, ties to the smallest by code point (``Finance-Team``),
    where ``tags``, ``tag`` and lint take the normalised form on a tie (``finance-team``,
    ``slugs.tag_spelling_rank``): the suggestion was a spelling ``tag`` would not write. Both engines."""
    write_tree(tmp_path / "v", {"a.md": "---\ntags: [Finance-Team]\n---\n# A\nalpha\n",
                                "b.md": "---\ntags: [finance-team]\n---\n# B\nalpha\n"})
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        assert _tag_row(b, "finance-team")["tag"] == "finance-team"
        for op in ("list", "search"):
            with pytest.raises(NotFound) as e:
                ops.run(op, {"tag": "finance-tem", **({"query": "alpha"} if op == "search" else {})}, ops.Context(), brain=b)
            assert e.value.args[0].endswith("did you mean: finance-team; the tags in this brain: finance-team (2)"), e.value
