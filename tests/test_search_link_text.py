"""Keyword search matches what a reader reads, not where a link points: a markdown link's
label, a wiki link's visible text (its alias, else its name as written), an image's alt text
are indexed; a link's address (the relative path, the ``.md``, the URL), an attachment embed's
file name and a URL's scheme are not (``keyword.search_text``: the indexed text is the page text
with those addresses blanked, ``pages.search_body``/``search_timeline``; the stored page text
is untouched). Measured before: on a 1,000-page make_brain brain ``deal`` matched 458 pages,
most only through ``[Acme deal](../deals/acme.md)``-style links. Code spans and fences keep
their text, links and all, as before. Runs on both engines (``--engine postgres``)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.page.markdown import parse_page
from gbrain.search import keyword
from gbrain.sync.importer import import_tree

from conftest import write_tree

PAGES = {
    "deals/acme.md": "# Acme\n\nThe Acme contract.\n",
    "notes/md-link.md": "# Weekly\n\nSigned [the Acme contract](../deals/acme.md) today.\n",
    "notes/wiki-alias.md": "# Monday\n\nTalked about [[deals/acme|the Acme agreement]].\n",
    "notes/wiki-heading.md": "# Tuesday\n\nSee [[Gamma plan#Budget review]] for numbers.\n",
    "notes/wiki-plain.md": "# Wednesday\n\nSee [[Zephyr roadmap]].\n",
    "notes/image.md": "# Office\n\n![a photo of the whiteboard](attachments/img-2931.png)\n",
    "notes/embed.md": "# Scan\n\n![[Pasted image 20240103102233.png]]\n\n![[receipt-scan.pdf|the signed receipt]]\n",
    "notes/url.md": "# Docs\n\nRead [the setup guide](https://example.com/handbook/onboarding?ref=quokka).\n",
    "notes/bare-url.md": "# Repo\n\nCode at https://github.com/someone/zettelkasten-tools for now.\n",
    "notes/ref-def.md": "# Refs\n\nSee [the manual][m].\n\n[m]: https://example.org/wombat-manual \"Wombat manual\"\n",
    "notes/code-span.md": "# Snippet\n\nWrite `[x](../deals/code.md)` to link.\n",
    "notes/fence.md": "# Fence\n\n```\n[y](../deals/fenced.md) https://example.net/x\n```\n",
    "notes/timeline.md": "# Timeline\n\nSummary.\n\n---\n\n- **2025-01-02** | call — Renewed [the lease](../deals/lease-xyz.md)\n",
}


@pytest.fixture
def brain(tmp_path, db_path):
    tree = write_tree(tmp_path / "vault", PAGES)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def slugs(b, query: str) -> set[str]:
    return {h["slug"] for h in keyword.search(b.conn, query, limit=50)}


def test_a_link_address_is_no_hit(brain):
    # `deals` is only in addresses (and the code span / fence, which keep their text as before)
    code = {"notes/code-span", "notes/fence"}
    assert slugs(brain, "deals") == {"deals/acme"} | code
    assert slugs(brain, "lease") == {"notes/timeline"}  # the timeline's label; its address `lease-xyz` is no hit:
    assert slugs(brain, "xyz") == set()


def test_the_label_words_are_hits(brain):
    assert slugs(brain, "contract") == {"deals/acme", "notes/md-link"}
    # (and the page it links so, by its link's label: keyword.anchor_evidence, signal link_text)
    assert slugs(brain, "agreement") == {"notes/wiki-alias", "deals/acme"}
    assert [h["signals"] for h in keyword.search(brain.conn, "agreement") if h["slug"] == "deals/acme"] == [["link_text"]]
    assert slugs(brain, "whiteboard") == {"notes/image"}
    assert slugs(brain, "setup guide") >= {"notes/url"}
    assert slugs(brain, "receipt") == {"notes/embed"}  # the embed's alt text, not its file name
    assert slugs(brain, "manual") == {"notes/ref-def"}  # the label; the definition's title stays too


def test_wiki_link_name_and_heading_are_visible_text(brain):
    assert slugs(brain, "budget review") == {"notes/wiki-heading"}
    assert slugs(brain, "gamma") == {"notes/wiki-heading"}
    assert slugs(brain, "zephyr") == {"notes/wiki-plain"}


def test_attachment_embed_file_names_and_urls_are_no_hit(brain):
    assert slugs(brain, "pasted") == set()
    assert slugs(brain, "scan") == {"notes/embed"}  # its title; `receipt-scan.pdf` adds nothing
    assert slugs(brain, "pdf") == set()
    assert slugs(brain, "png") == set()
    assert slugs(brain, "attachments") == set()
    assert slugs(brain, "onboarding") == set()
    assert slugs(brain, "quokka") == set()
    assert slugs(brain, "wombat") == {"notes/ref-def"}  # the definition's title, not its URL
    assert slugs(brain, "example") == {"notes/fence"}  # a URL inside a fence is code text


def test_a_bare_url_keeps_its_host_and_path_but_not_its_scheme(brain):
    assert slugs(brain, "zettelkasten") == {"notes/bare-url"}
    assert slugs(brain, "github") == {"notes/bare-url"}
    assert slugs(brain, "https") == {"notes/fence"}  # code keeps its text


def test_code_keeps_its_text(brain):
    assert slugs(brain, "code") >= {"notes/code-span"}
    assert "notes/fence" in slugs(brain, "fenced")


def test_the_stored_text_is_untouched_and_snippets_read_as_before(brain):
    got = brain.conn.execute("SELECT compiled_truth FROM pages WHERE slug = 'notes/md-link'").fetchone()[0]
    assert got == "# Weekly\n\nSigned [the Acme contract](../deals/acme.md) today.\n"
    (hit,) = keyword.search(brain.conn, "contract signed", limit=5)[:1]
    assert hit["slug"] == "notes/md-link"
    assert "Signed the Acme contract today." in hit["snippet"]
    (hit,) = [h for h in keyword.search(brain.conn, "agreement", limit=5) if h["slug"] == "notes/wiki-alias"]
    assert "Talked about the Acme agreement." in hit["snippet"]


# ---- the indexed text (a pure function of the text) -------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize("text, want", [
    ("a [b c](../deals/x.md) d", "a [b c](" + " " * 13 + ") d"),
    ('a [b](x.md "Title") d', 'a [b](     "Title") d'),
    ("a [b](https://en.wikipedia.org/wiki/Rust_(lang)) d", "a [b](" + " " * 41 + ") d"),
    ("a [b](<x y.md>) d", "a [b](" + " " * 8 + ") d"),
    ("[![badge](img/b.svg)](https://ci.example/x)", "[![badge](" + " " * 9 + ")](" + " " * 20 + ")"),
    ("[[deals/x|The Deal]]", "[[" + " " * 7 + "|The Deal]]"),
    ("[[Note#Heading]] [[#Local]] [[Note.md]]", "[[Note#Heading]] [[#Local]] [[Note   ]]"),
    ("![[img 1.png]] ![[img.png|300]] ![[a.pdf|the scan]] ![[Some note]]",
     "![[" + " " * 9 + "]] ![[" + " " * 7 + "|   ]] ![[" + " " * 5 + "|the scan]] ![[Some note]]"),
    ("[m]: https://x.org/a \"T\"\n", "[m]: " + " " * 15 + " \"T\"\n"),
    ("see https://www.github.com/a/b and <http://x.io>", "see " + " " * 12 + "github.com/a/b and <" + " " * 7 + "x.io>"),
    ("`[x](y.md)` and ``[[a|b]]``", None),
    ("```\n[x](y.md)\n```\n", None),
    ("no links at all", None),
    ("[x](y.md)\r\n[[a|b]]\r\n", "[x](    )\r\n[[ |b]]\r\n"),
])
def test_search_text(text, want):
    assert keyword.search_text(text) == want
    if want is not None:
        assert len(want) == len(text)


@pytest.mark.engine_free
def test_search_text_scans_alike_with_and_without_code():
    # the whole-text fast path (no code, comments or math) and the line scan agree
    text = "a [b](c.md) [[d|e]] https://f.io/g\n[h]: i.md\n![[j.png]]\n"
    fast = keyword.search_text(text)
    slow = keyword.search_text(text + "`k`\n")
    assert slow == fast + "`k`\n"


@pytest.mark.engine_free
def test_search_fields_hold_the_indexed_text_only_where_it_differs():
    page = parse_page("# T\n\n[a](b.md)\n\n---\n\n- **2025-01-01** | x — [[c|d]]\n", "t.md")
    f = keyword.search_fields(page)
    assert f["search_body"] == "# T\n\n[a](    )\n\n"
    assert f["search_timeline"] == "\n- **2025-01-01** | x — [[ |d]]\n"
    f = keyword.search_fields(parse_page("# T\n\nplain\n", "t.md"))
    assert f["search_body"] is None and f["search_timeline"] is None


def test_v39_indexes_the_label_text_of_a_brain_imported_before(tmp_path, db_path):
    """A brain imported before v39 indexed the stored text, addresses and all (both columns
    NULL: what the index read then): on open v39 fills the indexed text from the stored pages, so
    a link's address is no hit any more, and the brain equals a fresh import. Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg as pgmod
    from gbrain.sync.verify import fresh_import_differences

    tree = write_tree(tmp_path / "v", {"deals/acme.md": "# Acme\n", "notes/a.md": "# A\n\nSigned [the contract](../deals/acme.md).\n",
                                       "notes/b.md": "# B\n\nNo links.\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        with b.transaction():  # as before v39: the index reads the stored text
            c.execute("UPDATE pages SET search_body = NULL, search_timeline = NULL")
            _rewind(c, pgmod._search_text, dbmod._m39_search_text)
        assert "notes/a" in slugs(b, "deals")  # (the old state, as the index then read it)
    with Brain.open(db_path) as b:
        assert slugs(b, "deals") == {"deals/acme"}
        assert slugs(b, "contract") == {"notes/a", "deals/acme"}  # (deals/acme by its link's label: anchor_evidence)
        assert fresh_import_differences(b) == {}
        if getattr(b.conn, "dialect", "sqlite") != "postgres":
            b.conn.execute("INSERT INTO page_fts(page_fts, rank) VALUES ('integrity-check', 1)")


@pytest.mark.engine_free
def test_the_pages_own_parse_gives_the_index_the_text_a_second_parse_would():
    """The import hands the parse's opaque blocks to the index's scan (``Page.part_unread``)
    instead of parsing each part again; clipped to the compiled truth and shifted into the
    timeline they must hide exactly the links a parse of the part alone hides."""
    from gbrain.page.markdown import parse_page
    from gbrain.search.keyword import search_text

    hidden = "%%\n[secret](../deals/hidden.md)\n%%\n"
    math = "$$\n[x](../math/inside.md)\n$$\n"
    texts = [
        "# A\n\n" + hidden + "See [Ana](../people/ana.md) and `code [c](../c.md)`.\n\n---\n\n- **2025-01-02** | call — with [Bo](../people/bo.md)\n" + hidden,
        "# B\n\n[one](../one.md) %%inline [two](../two.md)%% [three](https://example.com/three)\n\n---\n\n" + math + "- **2025-01-03** | met [Cy](../people/cy.md)\n",
        "---\ntitle: C\n---\n" + math + "text [d](../d.md)\n\n---\n\n" + hidden + "[e](../e.md)\n",
        "# D\r\n\r\n" + hidden.replace("\n", "\r\n") + "[f](../f.md)\r\n",
        "# E\n\n```\n[g](../g.md)\n```\n%% [h](../h.md) %%\n\n---\n\n```\n%%\n```\n[i](../i.md)\n",
    ]
    for text in texts:
        page = parse_page(text, "notes/n.md")
        for part in ("compiled_truth", "timeline"):
            s = getattr(page, part)
            assert search_text(s, page.part_unread(part)) == search_text(s), (text, part)
    page = parse_page(texts[2], "notes/n.md")
    assert "e.md" not in (search_text(page.timeline, page.part_unread("timeline")) or page.timeline)
    assert "hidden.md" in (search_text(page.timeline, page.part_unread("timeline")) or page.timeline)
