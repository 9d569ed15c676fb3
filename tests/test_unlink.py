"""``unlink`` edits the links the page parser reads, and only those: a look-alike in an Obsidian
``%% … %%`` comment, a fenced code block, a code span or an indented code block stays as written
(trial of agents writing through the CLI/MCP: unlink scanned the text on its own and edited a
``[[Ana]]`` inside a ``%%`` comment)."""
from __future__ import annotations

import json

import pytest

from gbrain.core.brain import Brain
from gbrain.errors import GBrainError
from gbrain.page.linkedit import unlink_text
from gbrain.sync.verify import fresh_import_differences

ANA = "# Ana Lima\n\nFounder.\n"


def _unlink(db_path, body: str, to: str = "people/ana") -> str:
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", ANA)
        b.put("notes/n", body)
        b.unlink("notes/n", to)
        assert b.backlinks("people/ana") == []
        assert fresh_import_differences(b) == {}
        return b.get_text("notes/n")


@pytest.mark.parametrize(
    "body, want",
    [
        # an Obsidian comment block, on one line or several: the parser reads no link there
        ("Met [[ana]] today.\n\n%% [[ana]] to check %%\n", "Met ana today.\n\n%% [[ana]] to check %%\n"),
        ("Met [[ana]].\n\n%%\nask [[ana]] about [x](../people/ana.md)\n%%\n", "Met ana.\n\n%%\nask [[ana]] about [x](../people/ana.md)\n%%\n"),
        # fenced code (backticks and tildes, indented fence), code spans, an indented code block
        ("See [[ana]].\n\n```\n[[ana]]\n```\n\n  ~~~md\n[A](../people/ana.md)\n  ~~~\n", "See ana.\n\n```\n[[ana]]\n```\n\n  ~~~md\n[A](../people/ana.md)\n  ~~~\n"),
        ("See `[[ana]]`, ``x [A](../people/ana.md) y`` and [[ana]].\n", "See `[[ana]]`, ``x [A](../people/ana.md) y`` and ana.\n"),
        ("See [[ana]].\n\n    code [[ana]]\n", "See ana.\n\n    code [[ana]]\n"),
        # an HTML comment
        ("See [[ana]] <!-- [[ana]] -->\n", "See ana <!-- [[ana]] -->\n"),
    ],
    ids=["comment-line", "comment-block", "fences", "code-spans", "indented-code", "html-comment"],
)
def test_unlink_leaves_what_the_parser_reads_no_link_in(db_path, body, want):
    assert _unlink(db_path, body) == want


@pytest.mark.parametrize(
    "body, want",
    [
        ("[[ana#Work|her job]] and [[ana#Work]] and [[ana#^b1]] and [[people/ana|Ana L]].\n", "her job and ana and ana and Ana L.\n"),
        ("| who | x |\n|---|---|\n| [[ana\\|Ana]] | 1 |\n", "| who | x |\n|---|---|\n| Ana | 1 |\n"),
        ('See [Ana](../people/ana.md "Ana Lima"), [Ana L](../people/ana.md \'t\') and [A.](<../people/ana.md> (t)).\n', "See Ana, Ana L and A..\n"),
        ("See [**Ana**](../people/ana.md#work).\n", "See **Ana**.\n"),
    ],
    ids=["wiki-heading-alias", "wiki-in-table", "markdown-titles", "markdown-anchor"],
)
def test_unlink_reads_headings_aliases_and_titles(db_path, body, want):
    assert _unlink(db_path, body) == want


def test_unlink_of_a_link_only_in_a_comment_is_refused(db_path):
    """The parser reads no link in a ``%%`` comment: there is nothing to unlink, and the comment
    is not edited."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", ANA)
        b.put("notes/n", "Hello.\n\n%% [[ana]] %%\n")
        with pytest.raises(GBrainError):
            b.unlink("notes/n", "people/ana")
        assert b.get_text("notes/n") == "Hello.\n\n%% [[ana]] %%\n"


@pytest.mark.engine_free
def test_unlink_text_counts_only_the_links_it_removed():
    text = "---\nrelated: \"[[ana|A.]]\"\n---\n[[ana]]\n%% [[ana]] %%\n\n```\n[[ana]]\n```\n\n    [[ana]]\n"
    new, n = unlink_text(text, lambda kind, t: t == "ana")
    assert n == 2
    assert new == "---\nrelated: \"A.\"\n---\nana\n%% [[ana]] %%\n\n```\n[[ana]]\n```\n\n    [[ana]]\n"


def test_link_and_unlink_find_the_target_as_a_wiki_link_would(fixture_db):
    """Trial: `brain_link {"to": "Ana Lima"}` (the page's title, as an agent reads it) was "no
    page 'Ana Lima'"; `brain_unlink` took a dead link's name as written but no title either. Both
    now find the target as `[[name]]` written in the source page resolves (`Brain.link_target`:
    slug, suffix, alias, then title / file name / slugified name, nearest folder first), through
    every surface; a name no page has is still refused with its near names, and a dead link's
    name as written is still unlinked."""
    from conftest import gbrain

    db = str(fixture_db)
    r = gbrain("--db", db, "call", "brain_link", '{"from": "concepts/hybrid-retrieval", "to": "Ana Lima", "context": "knows it"}')
    assert r.returncode == 0, r.stdout
    with Brain.open(fixture_db) as b:
        assert "concepts/hybrid-retrieval" in {x["slug"] for x in b.backlinks("people/ana-lima")}
        assert "[[ana-lima|Ana Lima]] — knows it" in b.get_text("concepts/hybrid-retrieval")  # its wiki-link habit
        b.put("notes/t", "# T\n\nSee [[River AI]] and [[Ghost Person]].\n")
    assert gbrain("--db", db, "link", "concepts/hybrid-retrieval", "River AI").returncode == 0
    for frm, to in (("concepts/hybrid-retrieval", "Ana Lima"), ("concepts/hybrid-retrieval", "river ai"), ("notes/t", "River AI"), ("notes/t", "Ghost Person")):
        r = gbrain("--db", db, "call", "brain_unlink", json.dumps({"from": frm, "to": to}))
        assert r.returncode == 0 and json.loads(r.stdout)["changed"], (frm, to, r.stdout)
    with Brain.open(fixture_db) as b:
        assert "concepts/hybrid-retrieval" not in {x["slug"] for x in b.backlinks("people/ana-lima")}
        assert b.get_text("notes/t") == "# T\n\nSee River AI and Ghost Person.\n"
        assert fresh_import_differences(b) == {}
    r = gbrain("--db", db, "call", "brain_link", '{"from": "concepts/hybrid-retrieval", "to": "Ana Limma"}')
    assert r.returncode == 1 and json.loads(r.stdout)["suggestions"][0] == "people/ana-lima"


def test_a_name_several_pages_share_is_the_nearest_one_as_a_wiki_link_reads_it(db_path):
    """Trial on obsidian-help: `gbrain link en/Plugins/Templates Canvas` was "'Canvas' matches 5
    pages … give the full slug", though `[[Canvas]]` written in that page is en/Plugins/Canvas
    (the nearest folder), as the README says of link's TO. The nearest page is taken when the
    folders alone decide; from a page no candidate is nearer to, the name stays ambiguous."""
    from conftest import gbrain

    with Brain.open(db_path) as b:
        b.put("en/Plugins/Canvas", "# Canvas\n")
        b.put("de/Erweiterungen/Canvas", "# Canvas\n")
        b.put("en/Plugins/Templates", "# Templates\n\nSee [[Canvas]].\n")
        b.put("en/Plugins/Other", "# Other\n")
        b.put("home", "# Home\n")
    db = str(db_path)
    r = gbrain("--db", db, "link", "en/Plugins/Other", "Canvas")
    assert r.returncode == 0, r.stderr
    r = gbrain("--db", db, "unlink", "en/Plugins/Templates", "Canvas")
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert {x["slug"] for x in b.backlinks("en/Plugins/Canvas")} == {"en/Plugins/Other"}
        assert b.backlinks("de/Erweiterungen/Canvas") == []
        assert b.get_text("en/Plugins/Templates") == "# Templates\n\nSee Canvas.\n"
    r = gbrain("--db", db, "link", "home", "Canvas")  # no folder in common with either: still refused
    assert r.returncode == 1 and b"matches 2 pages" in r.stderr, r.stderr
