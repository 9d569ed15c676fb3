"""``gbrain lint --check dead_links --fix-safe``: links to a page renamed or moved on disk (the
history records the move) are pointed at the page's new name, in the style each was written in;
nothing else in a page changes. Runs on both engines (``--engine postgres``)."""
from __future__ import annotations

import json
import posixpath
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from conftest import gbrain, gbrain_in_process, write_tree

from gbrain import operations as ops
from gbrain.core import lint as lintmod
from gbrain.core.brain import Brain
from gbrain.sync.engine import SyncEngine
from gbrain.sync.verify import fresh_import_differences

ACME = "# The Acme Company\n\n## Funding\n\nSeed round. ^blk1\n"
OLD = "# Spaced Co\n\nA company with spaces in its file name.\n"
ANA = (
    "---\ntitle: Ana\nrelated: \"[[acme]]\"\n---\n\n"
    "Works at [[acme]], aka [[acme|the company]]; funding: [[acme#Funding]], [[acme#^blk1]].\n\n"
    "![[acme]]\n\nPath form [[companies/acme]] and markdown [Acme](../companies/acme.md#funding).\n\n"
    "Spaces: [Old](../companies/Old%20Name.md) and `[[acme]]` in code stays.\n\n"
    "```\n[[acme]] in a fence stays\n```\n"
)
MEMO = (
    "Deep memo: [the company](../../companies/acme.md), [old](<../../companies/Old Name.md>) "
    "and [[Old Name|OLD]].\r\n\r\nUntouched [[Nobody Here]] and [web](https://example.com/acme.md).\r\n"
)
INDEX = "Index: [Acme](companies/acme.md), [[acme.md]], [Old](/companies/Old%20Name.md).\n"

ANA_FIXED = (
    "---\ntitle: Ana\nrelated: \"[[acme-corp]]\"\n---\n\n"
    "Works at [[acme-corp]], aka [[acme-corp|the company]]; funding: [[acme-corp#Funding]], [[acme-corp#^blk1]].\n\n"
    "![[acme-corp]]\n\nPath form [[companies/acme-corp]] and markdown [Acme](../companies/acme-corp.md#funding).\n\n"
    "Spaces: [Old](../companies/New%20Name.md) and `[[acme]]` in code stays.\n\n"
    "```\n[[acme]] in a fence stays\n```\n"
)
MEMO_FIXED = (
    "Deep memo: [the company](../../companies/acme-corp.md), [old](<../../companies/New Name.md>) "
    "and [[New Name|OLD]].\r\n\r\nUntouched [[Nobody Here]] and [web](https://example.com/acme.md).\r\n"
)
INDEX_FIXED = "Index: [Acme](companies/acme-corp.md), [[acme-corp.md]], [Old](/companies/New%20Name.md).\n"


write = write_tree


def synced(root: Path, db_path, pages: dict[str, str]) -> tuple[Brain, SyncEngine]:
    write(root, pages)
    b = Brain.open(db_path, create=True)
    eng = SyncEngine(b, root)
    eng.bind()
    assert eng.sync()["ok"]
    return b, eng


def rename(eng: SyncEngine, root: Path, moves: dict[str, str]) -> None:
    for a, c in moves.items():
        (root / c).parent.mkdir(parents=True, exist_ok=True)
        (root / a).rename(root / c)
    assert eng.sync()["counts"]["moved"] == len(moves)


def text_of(b: Brain, slug: str) -> str:
    return b.get_text(slug)


@pytest.fixture
def renamed(tmp_path, db_path):
    root = tmp_path / "v"
    b, eng = synced(root, db_path, {"companies/acme.md": ACME, "companies/Old Name.md": OLD, "people/ana.md": ANA,
                                    "notes/deep/memo.md": MEMO, "home.md": INDEX})
    rename(eng, root, {"companies/acme.md": "companies/acme-corp.md", "companies/Old Name.md": "companies/New Name.md"})
    yield b, eng, root
    eng.close()
    b.close()


def test_links_of_every_form_follow_the_rename(renamed):
    b, eng, root = renamed
    assert b.backlinks("companies/acme-corp") == []
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True, "limit": 0}, brain=b)
    assert text_of(b, "people/ana") == ANA_FIXED
    assert text_of(b, "notes/deep/memo") == MEMO_FIXED
    assert text_of(b, "home") == INDEX_FIXED
    fixed = {f["slug"]: f for f in r["fixed"]}
    assert set(fixed) == {"people/ana", "notes/deep/memo", "home"}
    pairs = {(x["from"], x["to"]) for x in fixed["people/ana"]["links"]}
    assert ("[[acme|the company]]", "[[acme-corp|the company]]") in pairs
    assert ("(../companies/Old%20Name.md)", "(../companies/New%20Name.md)") in pairs
    # the link in the frontmatter (a property) is rewritten in place too
    assert ("[[acme]]", "[[acme-corp]]") in pairs and r["skipped"] == []
    # only the dead link nobody renamed is left
    assert [f["target"] for f in r["items"]] == ["Nobody Here"]
    assert {x["slug"] for x in b.backlinks("companies/acme-corp")} == {"people/ana", "notes/deep/memo", "home"}
    assert {x["slug"] for x in b.backlinks("companies/New Name")} == {"people/ana", "notes/deep/memo", "home"}
    assert fresh_import_differences(b) == {}
    # a normal write: the history keeps the old version and names the operation
    h = b.conn.execute("SELECT operation FROM history WHERE kind = 'page' AND name = 'people/ana' ORDER BY version").fetchall()
    assert len(h) == 2 and h[-1][0] == "lint-fix"  # the operation that wrote (lint --fix-safe runs lint-fix)
    # under sync the files follow
    eng.sync()
    assert (root / "people/ana.md").read_bytes() == ANA_FIXED.encode()
    assert (root / "notes/deep/memo.md").read_bytes() == MEMO_FIXED.encode()
    # a second run has nothing left to fix
    r2 = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert r2["fixed"] == []


def test_dry_run_and_plain_lint_list_the_rewrites_and_write_nothing(renamed):
    b, eng, root = renamed
    before = {s: text_of(b, s) for s in ("people/ana", "notes/deep/memo", "home")}
    plain = ops.run("lint", {"check": "dead_links", "limit": 0}, brain=b)
    f = next(x for x in plain["items"] if x["slug"] == "notes/deep/memo" and x["target"] == "../../companies/Old Name")
    assert f["moved_to"] == "companies/New Name"
    assert f["rewrites"] == [{"from": "(<../../companies/Old Name.md>)", "to": "(<../../companies/New Name.md>)"}]
    dry = ops.run("lint", {"check": "dead_links", "fix_safe": True, "dry_run": True, "limit": 0}, brain=b)
    assert dry["dry_run"] is True
    assert {x["slug"] for x in dry["fixed"]} == {"people/ana", "notes/deep/memo", "home"}
    assert {s: text_of(b, s) for s in before} == before
    assert dry["counts"]["dead_links"] == plain["counts"]["dead_links"]


def test_bare_name_that_is_not_unique_becomes_a_path(tmp_path, db_path):
    root = tmp_path / "v"
    b, eng = synced(root, db_path, {"companies/acme.md": ACME, "archive/acme-corp.md": "# Other\n", "people/bo.md": "See [[acme|Acme]].\n"})
    rename(eng, root, {"companies/acme.md": "companies/acme-corp.md"})
    ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert text_of(b, "people/bo") == "See [[companies/acme-corp|Acme]].\n"
    assert [x["slug"] for x in b.backlinks("companies/acme-corp")] == ["people/bo"]
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_ambiguous_old_name_is_reported_not_touched(tmp_path, db_path):
    root = tmp_path / "v"
    index = "Which [[notes]]? This one: [[a/notes]].\n"
    b, eng = synced(root, db_path, {"a/notes.md": "# A\n", "b/notes.md": "# B\n", "home.md": index})
    rename(eng, root, {"a/notes.md": "a/notes-a.md", "b/notes.md": "b/notes-b.md"})
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert text_of(b, "home") == "Which [[notes]]? This one: [[a/notes-a]].\n"
    sk = [s for s in r["skipped"] if s["slug"] == "home"]
    assert len(sk) == 1 and "a/notes-a" in sk[0]["reason"] and "b/notes-b" in sk[0]["reason"]
    f = next(x for x in r["items"] if x["target"] == "notes")
    assert f.get("moved_to") is None and f["candidates"] == ["a/notes-a", "b/notes-b"]
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_moved_and_edited_page(tmp_path, db_path):
    """The page was edited in the brain and moved on disk in the same round (an edited move):
    links to it are fixed, and its own edit (with a link to a renamed page) is kept."""
    root = tmp_path / "v"
    b, eng = synced(root, db_path, {"deals/big-deal.md": "# Big\n", "companies/acme.md": ACME, "people/cy.md": "On [the deal](../deals/big-deal.md).\n"})
    b.put("deals/big-deal", "# Big\n\nEdited in the brain, for [[acme]].\n")
    (root / "archive/deals").mkdir(parents=True)
    (root / "deals/big-deal.md").rename(root / "archive/deals/big-deal.md")
    (root / "companies/acme.md").rename(root / "companies/acme-corp.md")
    assert eng.sync()["counts"]["moved"] == 2
    ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert text_of(b, "people/cy") == "On [the deal](../archive/deals/big-deal.md).\n"
    assert text_of(b, "archive/deals/big-deal") == "# Big\n\nEdited in the brain, for [[acme-corp]].\n"
    assert fresh_import_differences(b) == {}
    eng.sync()
    assert (root / "archive/deals/big-deal.md").read_text() == "# Big\n\nEdited in the brain, for [[acme-corp]].\n"
    eng.close()
    b.close()


def test_a_page_edited_between_read_and_fix_is_skipped(renamed, db_path):
    b, eng, root = renamed
    plans = lintmod.plan_link_fixes(b)
    assert {p["slug"] for p in plans["pages"]} == {"people/ana", "notes/deep/memo", "home"}
    with Brain.open(db_path) as other:  # someone else saves meanwhile
        other.put("home", INDEX + "\nA new line.\n")
    fixed, skipped = lintmod.apply_link_fixes(b, plans["pages"])
    assert {f["slug"] for f in fixed} == {"people/ana", "notes/deep/memo"}
    assert [s["slug"] for s in skipped] == ["home"] and "changed" in skipped[0]["reason"]
    assert text_of(b, "home") == INDEX + "\nA new line.\n"
    assert fresh_import_differences(b) == {}


def test_cli_dry_run_prints_page_old_and_new_link(renamed, db_path):
    b, eng, root = renamed
    p = gbrain("--db", str(db_path), "lint", "--check", "dead_links", "--fix-safe", "--dry-run")
    assert "would fix home" in p.stdout.decode() and "[[acme.md]] → [[acme-corp.md]]" in p.stdout.decode(), p.stdout.decode() + p.stderr.decode()
    assert text_of(b, "home") == INDEX


def test_tables_comments_merges_and_unfindable_links(tmp_path, db_path):
    """A wiki link in a table (``\\|`` before the alias) keeps its escape; links the parser does
    not see (HTML comments, code) stay as written; a page already linking to the new name gets
    both links merged in the views; a reference-style link is rewritten in its definition (it
    was left as written and said: since 2026-12-05 a definition is rewritten, as move does)."""
    root = tmp_path / "v"
    table = ("| Co | Note |\n|---|---|\n| [[acme\\|Acme]] | x |\n\n"
             "Also [[acme-corp]] and [[acme]]. <!-- [[acme]] stays -->\n\n<!--\n[[acme]] stays\n-->\n")
    ref = "See [Acme][a] and [[acme]].\n\n[a]: ../companies/acme.md\n"
    b, eng = synced(root, db_path, {"companies/acme.md": ACME, "people/t.md": table, "people/r.md": ref})
    rename(eng, root, {"companies/acme.md": "companies/acme-corp.md"})
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert text_of(b, "people/t") == table.replace("[[acme\\|", "[[acme-corp\\|").replace("and [[acme]].", "and [[acme-corp]].")
    assert text_of(b, "people/r") == ref.replace("and [[acme]]", "and [[acme-corp]]").replace("companies/acme.md", "companies/acme-corp.md")
    assert not any(s["slug"] == "people/r" for s in r["skipped"]), r["skipped"]
    assert r["items"] == [], r["items"]
    bl = {x["slug"]: x for x in b.backlinks("companies/acme-corp")}
    assert set(bl) == {"people/t", "people/r"}
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_relative_links_of_a_page_that_moved(tmp_path, db_path):
    """A page moved to another folder: its own relative markdown links, written where it was,
    point from its old place again (the new relative path); a link written after the move is
    no such link and stays dangling; links by bare name (``[[bo]]``, ``[Bo](bo.md)``) did not
    break at all."""
    root = tmp_path / "v"
    ana = "Works at [Acme](../companies/acme.md), with [[bo]] and [Bo](bo.md#x).\n"
    b, eng = synced(root, db_path, {"companies/acme.md": ACME, "people/bo.md": "# Bo\n", "people/ana.md": ana})
    rename(eng, root, {"people/ana.md": "archive/people/ana.md"})
    later = ana + "Later: [Bo again](../people/bo.md).\n"
    b.put("archive/people/ana", later)
    r = ops.run("lint", {"check": "dead_links", "limit": 0}, brain=b)
    f = next(x for x in r["items"] if x["target"] == "../companies/acme")
    assert f["moved_to"] == "companies/acme" and "people/ana" in f["message"]
    ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert text_of(b, "archive/people/ana") == later.replace("(../companies/acme.md)", "(../../companies/acme.md)")
    left = ops.run("lint", {"check": "dead_links"}, brain=b)
    assert [x["target"] for x in left["items"]] == ["../people/bo"]
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gbrain.page.linkedit import link_spans  # noqa: E402
from gbrain.page.markdown import parse_page  # noqa: E402
from gbrain.page.slugs import identity_key  # noqa: E402

_LINKS = ["[[acme]]", "[[Acme|the co]]", "![[acme#Funding]]", "[[acme#^b1]]", "[[people/Old Name]]", "[[acme.md]]",
          "[t](../companies/acme.md)", "[t](<../Old Name.md>)", "[t](Old%20Name.md#x)", "[**b**](acme.md \"title\")",
          "[t](/companies/acme.md?q)", "[web](https://x.org/a.md)"]
_GLUE = [" ", "\n", "\n\n", " `code [[acme]]` ", "\n\n```\n[[acme]]\n```\n\n", " <!-- [[acme]] --> ", "\n- ", "\n> ", "\n## ",
         "\n\n| a | b |\n|---|---|\n| ", " | ", " *em* ", "\r\n", "\n\n    indented [[acme]]\n\n", " \\[not\\] ",
         # Obsidian comments and math: a block the parser reads no link in, and look-alikes it does
         "\n\n%% ![[acme#Sponsor this author]] %%\n", "\n%%\n[[acme]]\n%%\n", "\r\n%% [[acme]] %%\r\n", " %% [[acme]] %% ",
         "\n%% [[acme]] %% tail\n", "\n\n$$\n[[acme]]\n$$\n\n", "\n- item\n  %% [[acme]] %%\n",
         # inline comments: a link inside is none, and a lone %% opens one that runs on (trial5)
         " %%[[acme]]%% ", " %% ", " `%%` ", "\n\n%% "]


@pytest.mark.engine_free
@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_GLUE), st.sampled_from(_LINKS)), min_size=1, max_size=8))
def test_link_spans_find_the_links_the_parser_finds(parts):
    """The text scan behind the fix finds, per target, as many links as the page parser on
    everyday markdown (code, comments, tables, lists, quotes, headings, CRLF); where they differ
    the fix leaves that target alone, so this is what decides how often it can act."""
    body = "".join(g + ln for g, ln in parts) + "\n"
    page = parse_page(body, "notes/p.md")
    want = Counter()
    for ln in page.links:
        want[("md" if ln.kind == "markdown" else "wiki", identity_key(ln.target))] += ln.count
    got = Counter((sp.family, identity_key(sp.target)) for sp in link_spans(body))
    indented = "\n\n    indented [[acme]]\n\n" in body  # an indented code block: the scan does not know it
    if not indented:
        assert got == want, body


def test_a_link_also_written_in_an_obsidian_comment_is_fixed(tmp_path, db_path):
    """Trial (obsidian-hub: 3,387 pages end with ``%% ![[author#Sponsor this author]] %%``): the
    page links ``[[bob]]`` and names it again in a ``%%`` comment block, which the parser reads no
    link in; the fix rewrites the link and leaves the comment as written."""
    root = tmp_path / "v"
    plugin = "Developed by: [[bob]]\n\n%% ![[bob#Sponsor]] %%\n"
    b, eng = synced(root, db_path, {"people/bob.md": "Bob writes plugins.\n", "plugin.md": plugin})
    rename(eng, root, {"people/bob.md": "people/Bob Smith.md"})
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert r["skipped"] == [], r["skipped"]
    assert text_of(b, "plugin") == "Developed by: [[Bob Smith]]\n\n%% ![[bob#Sponsor]] %%\n"
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_the_count_message_says_why_the_counts_differ(tmp_path, db_path):
    """A link the parser reads that the scan does not find (here a label holding brackets, which
    the scan does not read) is left as written, and the reason says which way the counts differ."""
    root = tmp_path / "v"
    ref = "See [the [big] Acme](../companies/acme.md) and [[acme]].\n"
    b, eng = synced(root, db_path, {"companies/acme.md": ACME, "people/r.md": ref})
    rename(eng, root, {"companies/acme.md": "companies/acme-corp.md"})
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    (s,) = [s for s in r["skipped"] if s["slug"] == "people/r"]
    assert "the text scan found 0 of the 1 the parser reads" in s["reason"], s
    eng.close()
    b.close()


def test_markdown_by_name_and_paths_in_another_case(tmp_path, db_path):
    """``[t](acme.md)`` from another folder resolved by file name: it becomes the new file name
    (unique) and stays a bare name; ``[[Companies/ACME]]`` named the page case-insensitively:
    it becomes the new path."""
    root = tmp_path / "v"
    b, eng = synced(root, db_path, {"companies/acme.md": ACME, "people/cy.md": "See [Acme](acme.md) and [[Companies/ACME|A]].\n"})
    rename(eng, root, {"companies/acme.md": "companies/acme-corp.md"})
    ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert text_of(b, "people/cy") == "See [Acme](acme-corp.md) and [[companies/acme-corp|A]].\n"
    assert [x["slug"] for x in b.backlinks("companies/acme-corp")] == ["people/cy"]
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_under_watch_the_files_follow(tmp_path, db_path):
    """A rename seen by a running ``gbrain watch``, then the fix through the CLI: watch writes
    the rewritten page to its file (waits on the state, not on the clock)."""
    from test_watch import Watch, wait_for

    root = tmp_path / "v"
    write(root, {"companies/acme.md": ACME, "people/ana.md": "Works at [[acme]] and [A](../companies/acme.md).\n"})
    w = Watch(root, db_path)
    try:
        with Brain.open(db_path) as b:
            wait_for(lambda: b.conn.execute("SELECT 1 FROM pages WHERE slug = 'people/ana'").fetchone(), "the first sync")
            (root / "companies/acme.md").rename(root / "companies/acme-corp.md")
            wait_for(lambda: b.conn.execute("SELECT 1 FROM pages WHERE slug = 'companies/acme-corp'").fetchone(), "watch to see the rename")
            # the batch that moved the note says the two links now dangle, and how to mend them
            wait_for(lambda: any("2 link(s) in 1 page(s) still name a moved page" in ln and "--fix-safe" in ln for ln in w.lines),
                     "watch's line on the links the rename left dangling")
            # said after the move it refers to (it came before the `> … (moved)` line)
            hint = next(i for i, ln in enumerate(w.lines) if "still name a moved page" in ln)
            moved = next(i for i, ln in enumerate(w.lines) if "companies/acme.md → companies/acme-corp.md (moved)" in ln)
            assert moved < hint, "\n".join(w.lines)
        p = gbrain("--db", str(db_path), "lint", "--check", "dead_links", "--fix-safe")
        assert b"fixed people/ana" in p.stdout, p.stdout + p.stderr
        want = "Works at [[acme-corp]] and [A](../companies/acme-corp.md).\n"
        wait_for(lambda: (root / "people/ana.md").read_text() == want, "watch to write the fixed page")
    finally:
        code, _ = w.stop()
    assert code == 0, "\n".join(w.lines)


def test_a_watch_coming_back_says_a_note_written_meanwhile_links_a_moved_page_s_old_name(tmp_path, db_path):
    """Trial 49: a page was moved through gbrain while a folder's watch was stopped, and a note
    written there meanwhile links the old name; the watch's first sync imports it as written.
    It says the link names a moved page by its old name, with the command that mends it."""
    from test_watch import Watch, wait_for

    root = tmp_path / "v"
    write(root, {"companies/acme.md": ACME, "people/ana.md": "Works at [[acme]].\n"})
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        ops.run("move", {"slug": "companies/acme", "to": "companies/acme-corp"}, brain=b)
        eng.close()
    (root / "notes").mkdir()
    (root / "notes/offline.md").write_text("Met [[companies/acme]] today.\n")
    w = Watch(root, db_path)
    try:
        wait_for(lambda: w.saw("1 link(s) in 1 page(s) still name a moved page"), "watch's line on the offline note's old name")
    finally:
        code, _ = w.stop()
    assert code == 0, "\n".join(w.lines)
    p = gbrain("--db", str(db_path), "lint", "--check", "dead_links", "--fix-safe", "--json")
    assert [x["slug"] for x in json.loads(p.stdout)["fixed"]] == ["notes/offline"], p.stdout + p.stderr


def test_under_watch_links_obsidian_rewrites_after_a_rename_are_not_called_dangling(tmp_path, db_path):
    """Trial 31: Obsidian renames a note, then rewrites the notes linking it, one by one (2,206
    notes took 11 s); watch said "2,207 link(s) in 2,206 page(s) still name a moved page by
    its old name: `gbrain lint --check dead_links --fix-safe` rewrites them" in the batch of the
    rename, advising a fix that races Obsidian's own. The line is said once the changes settle,
    counted then: here the links were rewritten, so nothing is said (also when watch stops)."""
    from test_watch import Watch, wait_for

    root = tmp_path / "v"
    write(root, {"companies/acme.md": ACME, "people/ana.md": "Works at [[acme]].\n", "people/bo.md": "Knows [[acme|Acme]].\n"})
    w = Watch(root, db_path)
    try:
        with Brain.open(db_path) as b:
            wait_for(lambda: b.conn.execute("SELECT 1 FROM pages WHERE slug = 'people/bo'").fetchone(), "the first sync")
            (root / "companies/acme.md").rename(root / "companies/acme-corp.md")
            wait_for(lambda: w.saw("companies/acme.md → companies/acme-corp.md (moved)"), "watch to see the rename")
            (root / "people/ana.md").write_text("Works at [[acme-corp]].\n")
            (root / "people/bo.md").write_text("Knows [[acme-corp|Acme]].\n")
            wait_for(lambda: {x["slug"] for x in b.backlinks("companies/acme-corp")} == {"people/ana", "people/bo"}, "the rewrites")
    finally:
        code, _ = w.stop()
    assert code == 0, "\n".join(w.lines)
    assert not w.saw("still name a moved page"), "\n".join(w.lines)


def test_under_watch_the_line_on_old_names_counts_the_links_to_the_notes_just_moved(tmp_path, db_path):
    """Trial 68: watch's line after a move counted every link in the brain that names any page
    moved ever by an old name, so each later rename (an attachment folder Obsidian had relinked,
    a note whose links it rewrote) said the same backlog again ("593 link(s) in 278 page(s) still
    name a moved page"), as if that rename had broken them. It counts the links to the notes
    moved since its last line: a later rename that left one link says 1; one whose links were
    rewritten says nothing (also when watch stops). ``gbrain lint --check dead_links`` lists them all."""
    from test_watch import Watch, wait_for

    root = tmp_path / "v"
    write(root, {"companies/acme.md": ACME, "people/ana.md": "Works at [[acme]] and [A](../companies/acme.md).\n",
                 "notes/x.md": "# X\n", "notes/linker.md": "See [[x]].\n", "notes/z.md": "# Z\n", "notes/zl.md": "See [[z]].\n"})
    w = Watch(root, db_path)
    try:
        with Brain.open(db_path) as b:
            wait_for(lambda: b.conn.execute("SELECT 1 FROM pages WHERE slug = 'notes/zl'").fetchone(), "the first sync")
            (root / "companies/acme.md").rename(root / "companies/acme-corp.md")  # links left as they were
            wait_for(lambda: w.saw("2 link(s) in 1 page(s) still name a moved page"), "the line on acme's two links")
            (root / "notes/x.md").rename(root / "notes/x2.md")  # its one link left too
            wait_for(lambda: w.saw("notes/x.md → notes/x2.md (moved)"), "watch to see the second rename")
            wait_for(lambda: sum("still name a moved page" in ln for ln in w.lines) == 2, "the line after the second rename")
            last = [ln for ln in w.lines if "still name a moved page" in ln][-1]
            assert "1 link(s) in 1 page(s) still name a moved page" in last, "\n".join(w.lines)
            (root / "notes/z.md").rename(root / "notes/z2.md")  # Obsidian rewrites its link
            (root / "notes/zl.md").write_text("See [[z2]].\n")
            wait_for(lambda: [x["slug"] for x in b.backlinks("notes/z2")] == ["notes/zl"], "the rewrite")
    finally:
        code, _ = w.stop()
    assert code == 0, "\n".join(w.lines)
    assert sum("still name a moved page" in ln for ln in w.lines) == 2, "\n".join(w.lines)
    p = gbrain("--db", str(db_path), "lint", "--check", "dead_links", "--json")
    assert json.loads(p.stdout)["counts"]["dead_links"] == 3, p.stdout  # (all of them: lint lists the backlog)


@pytest.mark.engine_free
def test_under_watch_only_the_folder_that_moved_the_note_says_links_dangle(tmp_path, pg_url):
    """Trial 34 (a team on Postgres): after bob's rename every running watch, cat's too (which
    moved nothing: its watch only followed the rename), said "N link(s) … still name a moved
    page": its file had followed the rename (an editor still holding the note saved at the old
    name; or an edit made as the rename came). The line is the mover's: said by the watch whose
    folder the move came from; the other watch follows the rename in silence (waits on the
    state, not on the clock). Postgres: a SQLite brain syncs with one folder at a time."""
    from test_watch import Watch, wait_for

    a, c = tmp_path / "bob", tmp_path / "cat"
    write(a, {"companies/acme.md": ACME, "people/ana.md": "Works at [[acme]].\n"})
    c.mkdir()
    wa = Watch(a, pg_url)
    wc = None
    try:
        wc = Watch(c, pg_url)
        wait_for(lambda: (c / "people/ana.md").exists() and (c / "companies/acme.md").exists(), "cat's folder to get the notes")
        buffer = (c / "companies/acme.md").read_bytes()  # cat's editor holds the note
        (a / "companies/acme.md").rename(a / "companies/acme-corp.md")
        wait_for(lambda: (c / "companies/acme-corp.md").exists() and not (c / "companies/acme.md").exists(), "the rename to reach cat")
        wait_for(lambda: wa.saw("still name a moved page"), "bob's watch to say the link dangles")
        (c / "companies/acme.md").write_bytes(buffer + b"\ncat's line\n")  # … and saves its buffer at the old name
        wait_for(lambda: wc.saw("the save follows the rename"), "cat's save to follow the rename")
        wait_for(lambda: b"cat's line" in (a / "companies/acme-corp.md").read_bytes(), "cat's line to reach bob")
    except BaseException:
        print("BOB", *wa.lines, "CAT", *(wc.lines if wc else []), sep="\n")
        raise
    finally:
        code_a, _ = wa.stop()
        code_c, _ = wc.stop() if wc else (0, None)
    assert code_a == code_c == 0, "\n".join(wa.lines + wc.lines)
    assert not wc.saw("still name a moved page"), "\n".join(wc.lines)


def test_sync_says_how_many_links_a_move_left_dangling(tmp_path, db_path):
    """``gbrain sync`` after a rename: the report counts the links that still use the old name
    (and the pages holding them) and names the command that rewrites them; once they are
    rewritten, a sync with another move says nothing of them. A dangling link no move explains
    is not counted. (The commands run in-process: the test is about sync's report, not the process.)"""
    gbrain = gbrain_in_process
    root = tmp_path / "v"
    write(root, {"companies/acme.md": ACME, "people/ana.md": "Works at [[acme]] and [A](../companies/acme.md).\n",
                 "people/bo.md": "Knows [[acme]] and [[Nobody Here]].\n", "misc/x.md": "x\n"})
    db = str(db_path)
    assert gbrain("--db", db, "sync", str(root)).returncode == 0
    (root / "companies/acme.md").rename(root / "companies/acme-corp.md")
    p = gbrain("--db", db, "sync", str(root))
    out = p.stdout.decode()
    assert p.returncode == 0, out + p.stderr.decode()
    assert "3 link(s) in 2 page(s) still name a moved page by its old name: `gbrain lint --check dead_links --fix-safe`" in out, out
    p = gbrain("--db", db, "--json", "sync", str(root))
    assert "renamed_links" not in json.loads(p.stdout)  # no move this time: no count
    assert b"fixed people/ana" in gbrain("--db", db, "lint", "--check", "dead_links", "--fix-safe").stdout
    (root / "misc/x.md").rename(root / "misc/y.md")
    p = gbrain("--db", db, "--json", "sync", str(root))
    rep = json.loads(p.stdout)
    assert rep["counts"]["moved"] == 1 and "renamed_links" not in rep, rep  # [[Nobody Here]] still dangles: not a move's
    assert "still name a moved page" not in gbrain("--db", db, "sync", str(root)).stdout.decode()


def test_sync_counts_the_links_to_the_notes_it_moved_not_the_backlog(tmp_path, db_path):
    """Trial 68: a sync that moved a note said the count of every link in the brain naming any
    page ever moved by an old name (the links an earlier move left, not mended), as if this move
    had broken them. It counts the links to the notes it moved; lint lists them all."""
    gbrain = gbrain_in_process
    root = tmp_path / "v"
    write(root, {"companies/acme.md": ACME, "people/ana.md": "Works at [[acme]] and [A](../companies/acme.md).\n",
                 "misc/x.md": "x\n", "misc/l.md": "[[x]]\n", "misc/z.md": "z\n"})
    db = str(db_path)
    assert gbrain("--db", db, "sync", str(root)).returncode == 0
    (root / "companies/acme.md").rename(root / "companies/acme-corp.md")
    assert "2 link(s) in 1 page(s) still name" in gbrain("--db", db, "sync", str(root)).stdout.decode()
    (root / "misc/x.md").rename(root / "misc/y.md")
    out = gbrain("--db", db, "sync", str(root)).stdout.decode()
    assert "1 link(s) in 1 page(s) still name a moved page" in out, out
    (root / "misc/z.md").rename(root / "misc/z2.md")  # nothing links it
    rep = json.loads(gbrain("--db", db, "--json", "sync", str(root)).stdout)
    assert rep["counts"]["moved"] == 1 and "renamed_links" not in rep, rep
    assert json.loads(gbrain("--db", db, "--json", "lint", "--check", "dead_links").stdout)["counts"]["dead_links"] == 3


#: ``acmé.md`` as macOS writes a file name: NFD, ``e`` + U+0301
ACME_NFD = unicodedata.normalize("NFD", "acmé.md")


def test_sync_counts_the_links_to_a_note_moved_to_a_name_written_in_nfd(tmp_path, db_path):
    """A note moved to a name with an accented letter written decomposed (NFD, as macOS names
    files): its page's slug is NFC, so the links to its old name, counted against the move's
    path with ``.md`` cut by hand (NFD), were never counted: the sync said nothing while lint
    found both dead. The count maps the moved paths to slugs (``slug_for_path``: NFC)."""
    root = tmp_path / "v"
    write(root, {"companies/acme.md": ACME, "people/ana.md": "Works at [[acme]] and [A](../companies/acme.md).\n"})
    with Brain.open(db_path, create=True) as b:
        assert ops.run("sync", {"dir": str(root)}, brain=b)["ok"]
        (root / "companies/acme.md").rename(root / "companies" / ACME_NFD)
        r = ops.run("sync", {"dir": str(root)}, brain=b)
        assert [m["to"] for m in r["moved"]] == ["companies/" + ACME_NFD], r["moved"]
        assert r.get("renamed_links") == {"links": 2, "pages": 1}, r.get("renamed_links")
        assert ops.run("lint", {"check": "dead_links"}, brain=b)["counts"]["dead_links"] == 2


def test_under_watch_the_line_counts_the_links_to_a_note_moved_to_a_name_written_in_nfd(tmp_path, db_path):
    """Watch's line after a move to an NFD name (see the sync test above): said, with both links."""
    from test_watch import Watch, wait_for

    root = tmp_path / "v"
    write(root, {"companies/acme.md": ACME, "people/ana.md": "Works at [[acme]] and [A](../companies/acme.md).\n"})
    w = Watch(root, db_path)
    try:
        (root / "companies/acme.md").rename(root / "companies" / ACME_NFD)
        wait_for(lambda: w.saw("companies/acme.md → companies/" + ACME_NFD + " (moved)"), "watch to see the rename")
    finally:
        code, _ = w.stop()  # (the line comes once the changes settle, or at the stop)
    assert code == 0, "\n".join(w.lines)
    assert w.saw("2 link(s) in 1 page(s) still name a moved page"), "\n".join(w.lines)


# ---- links that gbrain still resolves (by title or alias) but whose file name is gone ----------


@pytest.mark.parametrize("old, new, page, link, fixed", [
    # trial (obsidian-hub, 715 files): a wiki link by the old file name, found by the page's H1
    ("Desktop-only plugins.md", "Desktop plugins.md", "# Desktop-only plugins\nlist\n",
     "Mobile compatible: [[Desktop-only plugins|No]]\n", "Mobile compatible: [[Desktop plugins|No]]\n"),
    # the same by a frontmatter title, and by an alias that is the old name
    ("Old Co.md", "New Co.md", "---\ntitle: Old Co\n---\nx\n", "See [[Old Co]].\n", "See [[New Co]].\n"),
    ("Old Co.md", "New Co.md", "---\naliases: [Old Co]\n---\nx\n", "See [[Old Co#Part]].\n", "See [[New Co#Part]].\n"),
    # trial (agent over MCP): a relative markdown link in the same folder, found by the title
    ("companies/grid-ai.md", "companies/grid-ai-inc.md", "---\ntitle: Grid AI\n---\n\n# Grid AI\n",
     "Same folder: [Grid AI](grid-ai.md)\n", "Same folder: [Grid AI](grid-ai-inc.md)\n"),
])
def test_a_link_by_a_gone_file_name_found_by_title_or_alias_is_flagged_and_fixed(tmp_path, db_path, old, new, page, link, fixed):
    """Obsidian resolves ``[[X]]`` by file name or path and ``[t](x.md)`` by path, never by a
    title or alias: after a rename such a link is broken there, though gbrain still finds the
    page. When the history's move says the written name was the page's old file name, lint
    reports it as a dead link of that page, the sync says it counts among the links to mend,
    and ``--fix-safe`` writes the page's current file name."""
    root = tmp_path / "v"
    linker = posixpath.join(posixpath.dirname(old), "p1.md")
    write(root, {old: page, linker: link})
    db = str(db_path)
    assert gbrain("--db", db, "sync", str(root)).returncode == 0
    (root / old).rename(root / new)
    p = gbrain("--db", db, "sync", str(root))
    assert "1 link(s) in 1 page(s) still name a moved page by its old name" in p.stdout.decode(), p.stdout.decode()
    slug, dest = linker[:-3], new[:-3]
    with Brain.open(db_path) as b:
        assert [x["to_slug"] for x in b.links(slug)] == [dest]  # gbrain's own resolution is kept
        r = ops.run("lint", {"check": "dead_links"}, brain=b)
        (f,) = r["items"]
        assert f["slug"] == slug and f["moved_to"] == dest and "old file name" in f["message"], f
        r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
        assert r["skipped"] == [] and [x["slug"] for x in r["fixed"]] == [slug], r
        assert text_of(b, slug) == fixed
        assert [x["to_slug"] for x in b.links(slug)] == [dest]
        assert ops.run("lint", {"check": "dead_links"}, brain=b)["items"] == []
        assert fresh_import_differences(b) == {}
    assert gbrain("--db", db, "sync", str(root)).returncode == 0
    assert (root / linker).read_text() == fixed


def test_a_link_by_title_with_no_move_behind_it_is_not_flagged(tmp_path, db_path):
    """A wiki link by a title the page always had (no file of that name ever moved) stays as it
    is, and so does a link by an old file name written only after the move (the history does not
    say it ever opened the moved page)."""
    root = tmp_path / "v"
    b, eng = synced(root, db_path, {"notes/a.md": "# Due Soon\n", "notes/soren.md": "S\n", "people/x.md": "# Soren\n",
                                    "home.md": "[[Due Soon]].\n"})
    rename(eng, root, {"notes/soren.md": "notes/soren-2.md"})
    write(root, {"later.md": "[[Soren]] written after the move.\n"})
    assert eng.sync()["ok"]
    assert {x["to_slug"] for x in b.links("home")} == {"notes/a"}
    assert {x["to_slug"] for x in b.links("later")} == {"people/x"}
    assert lintmod.renamed_links(b) == {"links": 0, "pages": 0}
    assert ops.run("lint", {"check": "dead_links"}, brain=b)["items"] == []
    eng.close()
    b.close()


def test_a_link_by_a_gone_file_name_now_found_at_another_page_by_its_alias_is_flagged_and_fixed(tmp_path, db_path):
    """Trial (obsidian-help, watch): ``en/Plugins/Command palette.md`` renamed to ``Command
    menu.md``; the 38 ``[[Command palette]]`` links of the en pages then resolved, silently, to
    ``zh/插件/命令面板`` (whose alias is "Command palette"), and lint said nothing. Obsidian opens
    links by file name only: they are broken there, and before the move they opened the moved
    page (the linking page's text held them when it moved). lint reports each with the page it
    became, the sync counts it, ``--fix-safe`` points it at the new name."""
    root = tmp_path / "v"
    b, eng = synced(root, db_path, {"en/Plugins/Command palette.md": "Run commands.\n",
                                    "zh/插件/命令面板.md": "---\naliases:\n  - Command palette\n---\n命令\n",
                                    "en/Editing/Tags.md": "Open the [[Command palette]] and [[Command palette#Use|it]].\n"})
    assert {x["to_slug"] for x in b.links("en/Editing/Tags")} == {"en/Plugins/Command palette"}
    rename(eng, root, {"en/Plugins/Command palette.md": "en/Plugins/Command menu.md"})
    assert {x["to_slug"] for x in b.links("en/Editing/Tags")} == {"zh/插件/命令面板"}  # gbrain's own resolution, as a fresh import
    assert lintmod.renamed_links(b) == {"links": 2, "pages": 1}
    (f,) = ops.run("lint", {"check": "dead_links"}, brain=b)["items"]
    assert f["slug"] == "en/Editing/Tags" and f["moved_to"] == "en/Plugins/Command menu", f
    assert "old file name" in f["message"] and "zh/插件/命令面板" in f["message"], f
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert r["skipped"] == [] and [x["slug"] for x in r["fixed"]] == ["en/Editing/Tags"], r
    assert text_of(b, "en/Editing/Tags") == "Open the [[Command menu]] and [[Command menu#Use|it]].\n"
    assert {x["to_slug"] for x in b.links("en/Editing/Tags")} == {"en/Plugins/Command menu"}
    assert ops.run("lint", {"check": "dead_links"}, brain=b)["items"] == []
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_the_sync_count_leaves_out_what_the_fix_cannot_rewrite(tmp_path, db_path):
    """The sync's line counts only the links ``--fix-safe`` rewrites: a link the text scan does
    not find (``[the [big] Acme](../companies/acme.md)``: a label holding brackets) and an
    old name two moved pages had are left out; the wiki link beside them counts."""
    root = tmp_path / "v"
    write(root, {"companies/acme.md": ACME, "a/notes.md": "# A\n", "b/notes.md": "# B\n",
                 "people/r.md": "See [the [big] Acme](../companies/acme.md) and [[acme]] and [[notes]].\n"})
    db = str(db_path)
    assert gbrain("--db", db, "sync", str(root)).returncode == 0
    for a, c in {"companies/acme.md": "companies/acme-corp.md", "a/notes.md": "a/notes-a.md", "b/notes.md": "b/notes-b.md"}.items():
        (root / a).rename(root / c)
    out = gbrain("--db", db, "sync", str(root)).stdout.decode()
    assert "1 link(s) in 1 page(s) still name a moved page by its old name" in out, out


def test_an_alias_several_pages_share_that_is_a_renamed_pages_old_name_says_so(tmp_path, db_path):
    """Trial5 (obsidian-help): after ``en/Plugins/Command palette.md`` became ``Command menu.md``,
    ``get "Command palette"`` said only "'Command palette' is an alias of 3 pages: ar/…, ru/…,
    zh/…; give the full slug". The name is also the renamed page's old name: the message says
    where it went and names it first."""
    root = tmp_path / "v"
    b, eng = synced(root, db_path, {"en/Plugins/Command palette.md": "Run.\n",
                                    "ru/Палитра.md": "---\naliases: [Command palette]\n---\nx\n",
                                    "zh/命令面板.md": "---\naliases: [Command palette]\n---\nx\n"})
    rename(eng, root, {"en/Plugins/Command palette.md": "en/Plugins/Command menu.md"})
    p = gbrain("--db", str(db_path), "--json", "get", "Command palette")
    err = json.loads(p.stdout)
    assert err["kind"] == "ambiguous", err
    assert "en/Plugins/Command palette was renamed to en/Plugins/Command menu" in err["error"], err
    assert err["suggestions"][0] == "en/Plugins/Command menu", err
    eng.close()
    b.close()


# ---- links whose file name, gone with a move, now opens another page of that name ----------

CANVAS = {"en/Plugins/Canvas.md": "Boards.\n", "ko/플러그인/Canvas.md": "캔버스\n",
          "en/Plugins/Web viewer.md": "Open it in a [[Canvas]] or [[Canvas#Cards|a board]].\n",
          "ko/플러그인/웹 뷰어.md": "[[Canvas]] 캔버스\n", "en/Linking/Embed files.md": "To embed a [[Canvas|canvas]]:\n"}


def test_a_link_whose_file_name_now_opens_another_page_of_that_name_is_flagged_and_fixed(tmp_path, db_path):
    """New-user walk-through (obsidian-help): ``en/Plugins/Canvas.md`` renamed to ``Canvas
    board.md``; ``[[Canvas]]`` in ``en/Plugins/Web viewer`` then resolved, silently, to
    ``ko/플러그인/Canvas`` (a page with the same file name; Obsidian opens it too), and neither
    the sync nor lint said anything: lint looked only at links found by a title or alias. Before
    the move the link opened the moved page (nearest folder); now another page by the same file
    name: lint reports it with the page it became, the sync counts it, ``--fix-safe`` points it
    at the new name. The Korean page's ``[[Canvas]]`` opened its own folder's page before and
    after: not reported. A link written with an alias only (``[[Canvas|canvas]]``, whose stored
    form is ``[[Canvas]]``) counts as held by the linking page too."""
    root = tmp_path / "v"
    b, eng = synced(root, db_path, CANVAS)
    assert {x["to_slug"] for x in b.links("en/Plugins/Web viewer")} == {"en/Plugins/Canvas"}
    rename(eng, root, {"en/Plugins/Canvas.md": "en/Plugins/Canvas board.md"})
    assert {x["to_slug"] for x in b.links("en/Plugins/Web viewer")} == {"ko/플러그인/Canvas"}  # as a fresh import (and Obsidian)
    assert lintmod.renamed_links(b) == {"links": 3, "pages": 2, "elsewhere": 3}
    (e, f) = ops.run("lint", {"check": "dead_links"}, brain=b)["items"]
    assert e["slug"] == "en/Linking/Embed files" and e["moved_to"] == "en/Plugins/Canvas board", e
    assert f["slug"] == "en/Plugins/Web viewer" and f["moved_to"] == "en/Plugins/Canvas board", f
    assert "old file name" in f["message"] and "now opens ko/플러그인/Canvas" in f["message"], f
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert r["skipped"] == [] and [x["slug"] for x in r["fixed"]] == ["en/Linking/Embed files", "en/Plugins/Web viewer"], r
    assert text_of(b, "en/Linking/Embed files") == "To embed a [[Canvas board|canvas]]:\n"
    assert text_of(b, "en/Plugins/Web viewer") == "Open it in a [[Canvas board]] or [[Canvas board#Cards|a board]].\n"
    assert {x["to_slug"] for x in b.links("en/Plugins/Web viewer")} == {"en/Plugins/Canvas board"}
    assert text_of(b, "ko/플러그인/웹 뷰어") == CANVAS["ko/플러그인/웹 뷰어.md"]
    assert ops.run("lint", {"check": "dead_links"}, brain=b)["items"] == []
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_sync_says_how_many_links_a_move_sent_to_another_page(tmp_path, db_path):
    """The sync's line after such a rename counts them with the links to mend and says that
    they now open another page, so the switch is not silent."""
    gbrain = gbrain_in_process
    root = tmp_path / "v"
    write(root, CANVAS)
    db = str(db_path)
    assert gbrain("--db", db, "sync", str(root)).returncode == 0
    (root / "en/Plugins/Canvas.md").rename(root / "en/Plugins/Canvas board.md")
    p = gbrain("--db", db, "sync", str(root))
    out = p.stdout.decode()
    assert p.returncode == 0, out + p.stderr.decode()
    assert ("3 link(s) in 2 page(s) still name a moved page by its old name (3 now open another page with that file name): "
            "`gbrain lint --check dead_links --fix-safe`") in out, out


def test_a_page_moved_in_the_same_round_as_the_page_it_links_to_is_flagged_too(tmp_path, db_path):
    """obsidian-help: ``Canvas.md`` and ``Web viewer.md`` renamed in one sync; ``[[Canvas]]`` in
    ``Web browser`` (Web viewer's new name) opened ``en/Plugins/Canvas`` before and now the
    Korean page: its text before the move is in the history under its old name, not its new one,
    and it counts as held there."""
    root = tmp_path / "v"
    b, eng = synced(root, db_path, CANVAS)
    rename(eng, root, {"en/Plugins/Canvas.md": "en/Plugins/Canvas board.md", "en/Plugins/Web viewer.md": "en/Plugins/Web browser.md"})
    assert {x["to_slug"] for x in b.links("en/Plugins/Web browser")} == {"ko/플러그인/Canvas"}
    assert lintmod.renamed_links(b) == {"links": 3, "pages": 2, "elsewhere": 3}
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert r["skipped"] == [] and [x["slug"] for x in r["fixed"]] == ["en/Linking/Embed files", "en/Plugins/Web browser"], r
    assert {x["to_slug"] for x in b.links("en/Plugins/Web browser")} == {"en/Plugins/Canvas board"}
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_a_wiki_link_by_a_path_suffix_follows_a_move(tmp_path, db_path):
    """Trial 31 (obsidian-hub inside a bigger vault: its index notes link
    ``[[02 - Community Expansions/…/Plugins/obsidian-style-settings|…]]``, a path from the hub's
    own root that Obsidian and gbrain resolve as the end of the note's path). After a folder move
    or a rename outside Obsidian such a link dangles: lint names the page it became and
    ``--fix-safe`` rewrites it, keeping the suffix form, as it does links by full path."""
    root = tmp_path / "v"
    index = ("Plugins: [[Plugins/style|Style]], [[Plugins/other]], [[hub/Plugins/style#Usage]].\n"
             "Themes: [[Themes/dark]].\n")
    b, eng = synced(root, db_path, {"hub/Plugins/style.md": "# Style\n\n## Usage\n", "hub/Plugins/other.md": "Other.\n",
                                    "hub/Themes/dark.md": "Dark.\n", "hub/Maps/index.md": index})
    assert [x["slug"] for x in b.backlinks("hub/Plugins/style")] == ["hub/Maps/index"]
    rename(eng, root, {"hub/Plugins/style.md": "hub/Extensions/style.md", "hub/Plugins/other.md": "hub/Extensions/other.md",
                       "hub/Themes/dark.md": "hub/Themes/Dark mode.md"})
    r = ops.run("lint", {"check": "dead_links"}, brain=b)
    moved = {f["target"]: f.get("moved_to") for f in r["items"]}
    assert moved == {"Plugins/style": "hub/Extensions/style", "Plugins/other": "hub/Extensions/other",
                     "hub/Plugins/style": "hub/Extensions/style", "Themes/dark": "hub/Themes/Dark mode"}, r["items"]
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert r["skipped"] == [] and r["items"] == [], r
    assert text_of(b, "hub/Maps/index") == ("Plugins: [[Extensions/style|Style]], [[Extensions/other]], [[hub/Extensions/style#Usage]].\n"
                                       "Themes: [[Themes/Dark mode]].\n")
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_a_path_suffix_two_moved_pages_shared_is_reported_not_guessed(tmp_path, db_path):
    """``[[Plugins/style]]`` written where two moved pages ended with that path: ambiguous, as
    for a bare old name; the lint names both and the fix leaves the link as written."""
    root = tmp_path / "v"
    b, eng = synced(root, db_path, {"a/Plugins/style.md": "A.\n", "b/Plugins/style.md": "B.\n",
                                    "n/note.md": "See [[a/Plugins/style]] and [[Plugins/style]].\n"})
    rename(eng, root, {"a/Plugins/style.md": "a/Ext/style.md", "b/Plugins/style.md": "b/Ext/style.md"})
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert text_of(b, "n/note") == "See [[a/Ext/style]] and [[Plugins/style]].\n"
    (f,) = r["items"]
    assert f["target"] == "Plugins/style" and f["candidates"] == ["a/Ext/style", "b/Ext/style"], f
    eng.close()
    b.close()


def test_a_title_link_a_folder_move_did_not_break_stays_as_written(tmp_path, db_path):
    """Trial 48: ``people/ana-yilmaz.md`` (title "Ana Yilmaz") moved to another folder in the synced
    folder; ``[[Ana Yilmaz]]`` found it by its title before the move and after, and no file of that
    name ever opened it (in Obsidian it was as broken before as after): lint does not call it a
    dead link and lint-fix leaves it as written (it rewrote it to ``[[ana-yilmaz]]``), as ``move``
    does (``plan_link_fixes(moved_from=)``). A link by the old file name still follows the move."""
    root = tmp_path / "v"
    b, eng = synced(root, db_path, {"people/ana-yilmaz.md": "---\ntitle: Ana Yilmaz\n---\n# Ana Yilmaz\n",
                                    "people/bo.md": "# Bo\n",
                                    "notes/x.md": "Met [[Ana Yilmaz]] and [[bo]].\n"})
    rename(eng, root, {"people/ana-yilmaz.md": "people/team/ana-yilmaz.md", "people/bo.md": "people/robert.md"})
    assert lintmod.renamed_links(b) == {"links": 1, "pages": 1}
    (f,) = ops.run("lint", {"check": "dead_links"}, brain=b)["items"]
    assert f["target"] == "bo" and f["moved_to"] == "people/robert", f
    r = ops.run("lint-fix", {"check": "dead_links"}, brain=b)
    assert [x["slug"] for x in r["fixed"]] == ["notes/x"], r
    assert text_of(b, "notes/x") == "Met [[Ana Yilmaz]] and [[robert]].\n"
    assert ops.run("lint", {"check": "dead_links"}, brain=b)["items"] == []
    eng.close()
    b.close()


def test_a_link_the_scan_and_the_parser_dispute_leaves_only_that_link_as_written(tmp_path, db_path):
    """The page's links to the renamed page were rewritten only when the text scan found as many
    as the parser reads: one written in an indented code block (the scan finds it, the parser
    reads no link there) left every link of the page as written (the whole page's rewrite
    dropped). Each scanned link is checked against the parser (`parser_reads`, as move's own
    rewrites are): the links it confirms are rewritten, the disputed one stays and is reported."""
    root = tmp_path / "v"
    code = "See [[acme]] and [[acme|the company]].\n\n    [[acme]] in an indented code block\n\nAlso [Acme](../companies/acme.md).\n"
    b, eng = synced(root, db_path, {"companies/acme.md": ACME, "people/c.md": code})
    rename(eng, root, {"companies/acme.md": "companies/acme-corp.md"})
    r = ops.run("lint", {"check": "dead_links", "fix_safe": True}, brain=b)
    assert text_of(b, "people/c") == code.replace("See [[acme]] and [[acme|", "See [[acme-corp]] and [[acme-corp|").replace(
        "../companies/acme.md", "../companies/acme-corp.md"), text_of(b, "people/c")
    (s,) = [s for s in r["skipped"] if s["slug"] == "people/c"]
    assert "[[acme]]" in s["reason"] and "parser reads no link" in s["reason"], s
    assert r["items"] == [] and {f["slug"] for f in r["fixed"]} == {"people/c"}, r
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_reference_definitions_follow_the_rename_used_or_not(tmp_path, db_path):
    """`[Acme][a]` with `[a]: ../companies/acme.md`: lint-fix read no definition, so the
    reference was left dead ("could not find each link"), and a definition no reference uses
    (no link: the parser reads none) was never looked at, where `move` repoints both on any
    page. Lint-fix rewrites a definition naming the renamed page, used or not (parser-checked:
    one in code stays)."""
    root = tmp_path / "v"
    used = "See [Acme][a], [again][a] and [Acme](../companies/acme.md).\n\n[a]: <../companies/acme.md> \"Acme\"\n"
    idle = "Nothing links it here.\n\n[a]: ../companies/acme.md\n[b]: ../companies/other.md\n\n    [c]: ../companies/acme.md\n"
    b, eng = synced(root, db_path, {"companies/acme.md": ACME, "people/r.md": used, "people/u.md": idle})
    rename(eng, root, {"companies/acme.md": "companies/acme-corp.md"})
    dry = ops.run("lint-fix", {"check": "dead_links", "dry_run": True}, brain=b)
    assert {f["slug"] for f in dry["fixed"]} == {"people/r", "people/u"}, dry["fixed"]
    assert text_of(b, "people/r") == used and text_of(b, "people/u") == idle
    r = ops.run("lint-fix", {"check": "dead_links"}, brain=b)
    assert text_of(b, "people/r") == used.replace("companies/acme.md", "companies/acme-corp.md"), text_of(b, "people/r")
    assert text_of(b, "people/u") == idle.replace("[a]: ../companies/acme.md", "[a]: ../companies/acme-corp.md"), text_of(b, "people/u")
    assert r["items"] == [] and r["skipped"] == [], r
    assert {f["slug"] for f in r["fixed"]} == {"people/r", "people/u"}
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_a_definition_the_parser_does_not_read_is_no_skipped_link_on_every_run(tmp_path, db_path):
    """Text shaped like a reference definition naming the renamed page where the parser reads
    none (inside a paragraph, an HTML block, a second definition of a label already defined) is no
    link and no dead one: lint-fix reported each under `skipped` as a link "left as written", on
    every run, for ever. It is left as written, unsaid (as one in code is); a real definition beside
    it is still rewritten."""
    root = tmp_path / "v"
    para = "A paragraph line\n[x]: ../companies/acme.md\n"
    html = "T\n\n<div>\n[x]: ../companies/acme.md\n</div>\n"
    dup = "T [y][x]\n\n[x]: ../companies/acme.md\n[x]: ../companies/acme.md\n"
    b, eng = synced(root, db_path, {"companies/acme.md": ACME, "people/p.md": para, "people/h.md": html, "people/d.md": dup})
    rename(eng, root, {"companies/acme.md": "companies/acme-corp.md"})
    for _ in range(2):
        r = ops.run("lint-fix", {"check": "dead_links"}, brain=b)
        assert r["skipped"] == [] and r["items"] == [], r
    assert text_of(b, "people/p") == para and text_of(b, "people/h") == html
    assert text_of(b, "people/d") == dup.replace("[x]: ../companies/acme.md\n", "[x]: ../companies/acme-corp.md\n", 1)
    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


def test_a_disputed_link_is_reported_with_its_line(tmp_path, db_path):
    """The link the parser does not read (an indented code block) was named only by its form,
    `[[acme]]`, which the page also holds where it was rewritten: a person could not tell which
    one was left. The reason names its line."""
    root = tmp_path / "v"
    code = "---\ntitle: C\n---\nSee [[acme]].\n\n    [[acme]] in an indented code block\n"
    b, eng = synced(root, db_path, {"companies/acme.md": ACME, "people/c.md": code})
    rename(eng, root, {"companies/acme.md": "companies/acme-corp.md"})
    r = ops.run("lint-fix", {"check": "dead_links"}, brain=b)
    assert text_of(b, "people/c") == code.replace("See [[acme]]", "See [[acme-corp]]")
    (s,) = [s for s in r["skipped"] if s["slug"] == "people/c"]
    assert "[[acme]] on line 6 " in s["reason"], s
    eng.close()
    b.close()
