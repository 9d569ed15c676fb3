"""``get --section``: the part of a page a wiki link's ``#…`` points at (``[[Note#Heading]]``,
``[[Note#A#B]]``, ``[[Note#^id]]``), not the whole page an agent would spend its tokens on.
A heading's section runs from its line to the line before the next heading of its level or a
higher one (a ``#`` line in fenced code or a ``%%`` comment is no heading); a block id's is its
paragraph or list item (with the items under it), or the block above an id alone on its line.
Without ``section`` get still prints the whole page (a name with ``#…`` says the section read
exists). The section's ``content_hash`` is a part token: a whole put of it is refused. Through
the one registry: the operation, the CLI, ``call`` and MCP. Both engines."""
from __future__ import annotations

import json

import anyio
import pytest

from conftest import gbrain, gbrain_in_process, write_tree
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import BadInput, Conflict
from gbrain.sync.importer import import_tree

GUIDE = (
    "---\ntitle: Guide\naliases: [Handbook]\n---\n"
    "# Guide\n\nIntro ^intro\n\n"
    "## Install\n\nRun it.\n\n```sh\n# not a heading\n## nor this\n```\n\n"
    "### Linux\n\napt install x\n\n"
    "## Use: links\n\n- one ^li\n  - under one\n- two\n\n"
    "%%\n## Hidden\n%%\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n^tbl\n\n"
    "Setext Heading\n--------------\n\nlast words\n"
)


def _guide_brain(tmp_path, path):
    write_tree(tmp_path / "v", {
        "docs/Guide.md": GUIDE,
        "links.md": "See [[Guide#Install]], [[Guide#Install#Linux]] and [[Guide#^li]].\n",
        "crlf.md": GUIDE.replace("Handbook", "Windows").replace("title: Guide", "title: CRLF").replace("\n", "\r\n"),
    })
    b = Brain.open(path)
    try:
        import_tree(b, tmp_path / "v")
    except BaseException:
        b.close()
        raise
    return b


@pytest.fixture
def brain(tmp_path, db_path):
    with _guide_brain(tmp_path, db_path) as b:
        yield b


@pytest.fixture
def own_brain(tmp_path):
    """:func:`brain` in a SQLite file of the test's own, for an ``engine_free`` test of where a
    section starts and ends in the page's text (the reads of a name, stored bytes, versions and
    writes use :func:`brain`: both engines)."""
    with _guide_brain(tmp_path, tmp_path / "own.db") as b:
        yield b


def get(b, **a) -> dict:
    return ops.run("get", a, ops.Context(), brain=b)


def section_of(heading_line: str, upto: str | None) -> str:
    start = GUIDE.index(heading_line)
    return GUIDE[start: GUIDE.index(upto, start + 1) if upto else len(GUIDE)]


@pytest.mark.engine_free
@pytest.mark.parametrize("want, first, upto", [
    ("Install", "## Install\n", "## Use: links"),  # to the next heading of its level, its ### included
    ("install", "## Install\n", "## Use: links"),  # by case
    ("#Install", "## Install\n", "## Use: links"),
    ("Use links", "## Use: links", "Setext Heading"),  # as Obsidian writes [[Guide#Use links]]; the %% heading is none
    ("Install#Linux", "### Linux", "## Use: links"),  # a heading path: Linux inside Install
    ("Guide", "# Guide", None),  # the H1: all of the body
    ("Setext Heading", "Setext Heading\n", None),
])
def test_a_heading_reads_its_section(own_brain, want, first, upto):
    r = get(own_brain, slug="Guide", section=want)
    assert r["content"] == section_of(first, upto)
    assert r["slug"] == "docs/Guide" and r["section"]["heading"] == first.strip()
    lines = r["section"]["lines"]
    assert GUIDE.splitlines()[lines[0] - 1] == first.strip() and lines[1] - lines[0] + 1 == r["content"].count("\n")
    assert r["offset"] == GUIDE.index(first) and r["total_chars"] == len(GUIDE) and r["truncated"] is False


@pytest.mark.engine_free
@pytest.mark.parametrize("want, text", [
    ("^intro", "Intro ^intro\n"),  # a paragraph
    ("^li", "- one ^li\n  - under one\n"),  # a list item with the items under it
    ("^LI", "- one ^li\n  - under one\n"),
    ("^tbl", "| a | b |\n|---|---|\n| 1 | 2 |\n\n^tbl\n"),  # alone on its line: the block above
])
def test_a_block_id_reads_its_block(own_brain, want, text):
    r = get(own_brain, slug="Guide", section=want)
    assert r["content"] == text and r["section"]["block"] == "^" + want[1:].lower()


def test_the_name_may_carry_the_section(brain):
    assert get(brain, slug="Guide#Install", section="#")["content"] == section_of("## Install\n", "## Use: links")
    assert get(brain, slug="Handbook#^li", section="#")["content"] == "- one ^li\n  - under one\n"
    with pytest.raises(BadInput, match="carries none"):
        get(brain, slug="Guide", section="#")


def test_a_crlf_page_keeps_its_bytes(brain):
    r = get(brain, slug="crlf", section="Install")
    assert r["content"] == section_of("## Install\n", "## Use: links").replace("\n", "\r\n")


def test_a_bare_cr_page_reads_its_sections(brain):
    """A page whose lines end in a bare ``\\r`` (classic Mac OS; the page model reads its
    headings): the section reader took its lines for one (a setext heading's text was
    ``Setext Heading\\r----``, ``Install`` found nothing or the wrong span), and the lines counted
    ``\\n`` alone."""
    body = GUIDE[GUIDE.index("# Guide"):]  # (a frontmatter block fenced with bare CRs is none: split_frontmatter)
    brain.put("mac", body.replace("\n", "\r"))
    assert get(brain, slug="mac", section="Install")["content"] == section_of("## Install\n", "## Use: links").replace("\n", "\r")
    r = get(brain, slug="mac", section="Setext Heading")
    assert r["content"] == section_of("Setext Heading\n", None).replace("\n", "\r") and r["section"]["heading"] == "Setext Heading"
    assert r["section"]["lines"] == [body.count("\n", 0, body.index("Setext Heading")) + 1, body.count("\n")]
    assert get(brain, slug="mac", section="^li")["content"] == "- one ^li\r  - under one\r"


@pytest.mark.engine_free
def test_a_missing_heading_or_block_is_bad_input_naming_them(own_brain):
    with pytest.raises(BadInput) as e:
        get(own_brain, slug="Guide", section="Uninstall")
    assert "docs/Guide has no heading 'Uninstall'; its headings: # Guide, ## Install, ### Linux, ## Use: links, Setext Heading" in str(e.value)
    assert "Hidden" not in str(e.value) and "nor this" not in str(e.value) and e.value.exit_code == 2
    with pytest.raises(BadInput, match=r"no block '\^nope'; its block ids: \^intro, \^li, \^tbl"):
        get(own_brain, slug="Guide", section="^nope")
    with pytest.raises(BadInput, match="no heading 'Hidden'"):  # in a %% comment
        get(own_brain, slug="Guide", section="Hidden")
    with pytest.raises(BadInput, match="no heading 'Linux#Install'"):  # Install is not inside Linux
        get(own_brain, slug="Guide", section="Linux#Install")


def test_a_whole_read_stays_whole_and_says_a_section_read_exists(brain):
    r = get(brain, slug="Guide#Install")
    assert r["content"] == GUIDE and "'#' reads only its 'Install'" in r["note"]
    assert "note" not in get(brain, slug="Guide")


def test_a_section_is_no_base_for_a_whole_put(brain):
    r = get(brain, slug="Guide", section="Install")
    page_hash = get(brain, slug="Guide")["content_hash"]
    assert r["content_hash"].startswith("part:") and r["content_hash"].endswith(page_hash)
    with pytest.raises(BadInput, match="rest of the page would be cut") as e:
        ops.run("put", {"slug": "Guide", "content": r["content"] + "more\n", "if_hash": r["content_hash"]}, ops.Context(surface="mcp"), brain=brain)
    # the refusal names the part puts a section's hash takes, `replace` first (trial 50: it named
    # only timeline_append and frontmatter, though fixing a word of the section read is what it is for)
    assert "to change a part, put `replace`, `append`, `timeline_append` or `frontmatter` with this content_hash" in str(e.value)
    assert get(brain, slug="Guide")["content"] == GUIDE
    done = ops.run("put", {"slug": "docs/Guide", "frontmatter": {"status": "read"}, "if_hash": r["content_hash"]}, ops.Context(surface="mcp"), brain=brain)
    assert done["changed"]
    r = get(brain, slug="Guide", section="Install")
    assert ops.run("put", {"slug": "docs/Guide", "append": "Appended.", "if_hash": r["content_hash"]}, ops.Context(surface="mcp"), brain=brain)["changed"]
    r = get(brain, slug="Guide", section="Install")  # read a section, fix a word of it in place
    done = ops.run("put", {"slug": "docs/Guide", "replace": {"Run it.": "Run it twice."}, "if_hash": r["content_hash"]}, ops.Context(surface="mcp"), brain=brain)
    assert done["changed"] and get(brain, slug="Guide", section="Install")["content"].startswith("## Install\n\nRun it twice.\n")
    with pytest.raises(BadInput, match="unknown parameter"):  # writes take no section
        ops.run("put", {"slug": "docs/Guide", "content": "x\n", "section": "Install"}, ops.Context(surface="mcp"), brain=brain)


def test_a_section_read_takes_a_replace_after_a_teammate_changed_another_part(brain):
    """Trial 49 (a team on one brain): an agent read `## Install`, a teammate then fixed a word in
    `## Use: links`, and the agent's replace inside Install, with the section's content_hash,
    was refused as "changed since it was read" though nothing it read had changed. Now a replace
    whose every old text lies in the part read, still in the page unchanged (once), is written
    over the teammate's edit; one reaching outside it, or a part that changed, still conflicts."""
    r = get(brain, slug="Guide", section="Install")
    ctx = ops.Context(surface="mcp")
    ops.run("put", {"slug": "docs/Guide", "replace": {"- two": "- two (teammate)"}}, ops.Context(surface="cli"), brain=brain)
    with pytest.raises(Conflict, match="changed since it was read"):  # outside the part read
        ops.run("put", {"slug": "docs/Guide", "replace": {"last words": "final words"}, "if_hash": r["content_hash"]}, ctx, brain=brain)
    with pytest.raises(Conflict, match="changed since it was read"):  # a whole-part write still needs the page's hash
        ops.run("put", {"slug": "docs/Guide", "frontmatter": {"status": "x"}, "if_hash": r["content_hash"]}, ctx, brain=brain)
    with pytest.raises(Conflict, match="changed since it was read"):  # so does a replace beside an append
        ops.run("put", {"slug": "docs/Guide", "replace": {"Run it.": "Run it twice."}, "append": "x", "if_hash": r["content_hash"]}, ctx, brain=brain)
    done = ops.run("put", {"slug": "docs/Guide", "replace": {"Run it.": "Run it twice."}, "if_hash": r["content_hash"]}, ctx, brain=brain)
    assert done["changed"]
    text = get(brain, slug="Guide")["content"]
    assert "Run it twice.\n" in text and "- two (teammate)\n" in text
    # the section itself changed since the read: refused, nothing written
    r = get(brain, slug="Guide", section="Linux")
    ops.run("put", {"slug": "docs/Guide", "replace": {"apt install x": "apt install y"}}, ops.Context(surface="cli"), brain=brain)
    with pytest.raises(Conflict, match="changed since it was read"):
        ops.run("put", {"slug": "docs/Guide", "replace": {"### Linux": "### Debian"}, "if_hash": r["content_hash"]}, ctx, brain=brain)
    assert "### Linux\n\napt install y\n" in get(brain, slug="Guide")["content"]


def test_a_long_section_comes_in_parts(brain):
    r = get(brain, slug="Guide", section="Install", max_chars=20)
    assert r["truncated"] is True and r["content"] == "## Install\n\nRun it.\n"
    rest = get(brain, slug="Guide", section="Install", offset=r["next_offset"])
    assert r["content"] + rest["content"] == section_of("## Install\n", "## Use: links") and rest["next_offset"] is None
    with pytest.raises(BadInput, match="outside the section"):
        get(brain, slug="Guide", section="Install", offset=1)


def test_a_version_reads_its_section(brain):
    ops.run("put", {"slug": "docs/Guide", "content": "# Guide\n\n## Install\n\nNew.\n"}, ops.Context(), brain=brain)
    assert get(brain, slug="docs/Guide", version=1, section="Linux")["content"] == "### Linux\n\napt install x\n\n"
    assert get(brain, slug="docs/Guide", section="Install")["content"] == "## Install\n\nNew.\n"


def test_the_cli_prints_the_section_and_exits_2_on_a_miss(brain, db_path):
    db = str(db_path)
    r = gbrain_in_process("--db", db, "get", "Guide", "--section", "Install")
    assert r.returncode == 0 and r.stdout.decode() == section_of("## Install\n", "## Use: links"), r.stderr
    r = gbrain_in_process("--db", db, "get", "Guide#Install#Linux", "--section", "#", "--json")
    got = json.loads(r.stdout)
    assert got["content"] == "### Linux\n\napt install x\n\n" and got["section"] == {"heading": "### Linux", "lines": [18, 21]}
    r = gbrain_in_process("--db", db, "get", "Guide", "--section", "Nope")
    assert r.returncode == 2 and b"no heading 'Nope'; its headings: # Guide, ## Install" in r.stderr and not r.stdout
    r = gbrain_in_process("--db", db, "get", "Guide#Install")
    assert r.returncode == 0 and r.stdout.decode() == GUIDE and b"--section '#' reads only its 'Install'" in r.stderr
    r = gbrain_in_process("--db", db, "get", "Guide", "--section", "Install", "--output", "x.md")
    assert r.returncode == 2 and b"give one" in r.stderr


def test_call_and_mcp_take_a_section(brain, db_path):
    r = gbrain_in_process("--db", str(db_path), "call", "brain_get", json.dumps({"slug": "Guide#^li", "section": "#"}))
    assert r.returncode == 0 and json.loads(r.stdout)["content"] == "- one ^li\n  - under one\n", r.stderr
    brain.close()
    from test_mcp import connect, ok

    async def main():
        async with connect(db_path) as c:
            tool = next(t for t in (await c.list_tools()).tools if t.name == "brain_get")
            got = ok(await c.call_tool("brain_get", {"slug": "Guide", "section": "Install#Linux"}))
            whole = ok(await c.call_tool("brain_get", {"slug": "Guide#Linux"}))
            miss = await c.call_tool("brain_get", {"slug": "Guide", "section": "Nope"})
            return tool, got, whole, miss

    tool, got, whole, miss = anyio.run(main)
    assert "section" in tool.input_schema["properties"]
    assert got["content"] == "### Linux\n\napt install x\n\n" and got["section"]["heading"] == "### Linux" and got["content_hash"].startswith("part:")
    assert whole["content"] == GUIDE and "section '#' reads only its 'Linux'" in whole["note"]
    assert miss.is_error and miss.structured_content["kind"] == "bad_input" and "its headings: # Guide" in miss.structured_content["error"]


@pytest.mark.engine_free
def test_cli_help_names_the_option():
    r = gbrain("get", "--help")
    assert r.returncode == 0 and b"--section" in r.stdout


@pytest.mark.engine_free
def test_a_heading_with_a_link_is_found_as_the_page_model_reads_it():
    from gbrain.page import sections

    text = "# [[Obsidian Publish|Publish]] sites\n\nx\n\n## **Bold** move\n\ny\n"
    assert sections.find(text, "Publish sites").name == "# [[Obsidian Publish|Publish]] sites"
    assert sections.find(text, "Obsidian Publish Publish sites") is not None  # Obsidian's own spelling of the link
    got = sections.find(text, "Bold move")
    assert text[got.start:got.end] == "## **Bold** move\n\ny\n"


@pytest.mark.engine_free
@pytest.mark.parametrize("corpus", ["obsidian-help"])
def test_headings_are_the_page_models_and_each_is_found(corpus):
    """Over a real vault: the section reader's headings are :attr:`Page.headings` (as the page
    model reads them), and each heading's own text finds a section that starts at a heading of
    that text (the first one: a page may repeat a heading)."""
    from conftest import CORPORA, tree_pages
    from gbrain.page import sections
    from gbrain.page.markdown import parse_page

    root = CORPORA / corpus
    if not root.is_dir():
        pytest.skip(f"{root} not available")
    pages = tree_pages(root)[::3]  # a third of them: ~4 CPU-s (all of the five corpora, 10,505 pages: no difference)
    assert pages
    for path, text in pages:
        heads = sections.headings(text)
        assert [h.plain for h in heads if h.plain] == parse_page(text, path).headings, path
        for h in heads:
            if h.text:
                got = sections.find(text, h.text)
                assert got is not None and got.start == next(x.start for x in heads if x.text == h.text), (path, h)


@pytest.mark.engine_free
def test_an_empty_heading_is_no_heading_as_the_page_model_reads_it():
    """A line of a lone ``#`` (an empty ATX heading) is in no :attr:`Page.headings`: it is no
    section of its own and ends none (it was one, and cut ``## A``'s section short)."""
    from gbrain.page import sections
    from gbrain.page.markdown import parse_page

    text = "# Top\n\n## A\n\nx\n\n#\n\ny\n\n##   \n\nz\n"
    assert parse_page(text).headings == ["Top", "A"]
    assert [h.line for h in sections.headings(text)] == ["# Top", "## A"]
    got = sections.find(text, "A")
    assert text[got.start:got.end] == "## A\n\nx\n\n#\n\ny\n\n##   \n\nz\n"
    assert sections.find(text, "#") is None



@pytest.mark.engine_free
@pytest.mark.parametrize("text, heading, section", [
    ("- sub\n===\n\ntext\n\n# B\n", "sub", "- sub\n===\n\ntext\n\n"),  # a lazy `===` under an item's line
    ("* a\n===\n    ---\n\n# B\n", "a", "* a\n===\n    ---\n\n"),
    ("1. one\n  ===\n\nmore\n", "one", "1. one\n  ===\n\nmore\n"),
    ("- a\n\n  b\n===\n\n# B\n", "b", "  b\n===\n\n"),  # the item's second paragraph
    ("-\titem\n   ---\n\n### B\n\n## C\n", "item", "-\titem\n   ---\n\n### B\n\n"),  # a tab after the marker
])
def test_a_setext_underline_under_a_list_item_is_read_as_the_page_model_reads_it(text, heading, section):
    """mistune (the page model, which parses these pages: the fast path leaves them to it) reads
    the underline below a list item's text as a setext heading's where pulldown-cmark reads text
    or a rule: the section reader agrees with the page model."""
    from gbrain.page import sections
    from gbrain.page.markdown import parse_page

    assert heading in parse_page(text).headings
    assert [h.plain for h in sections.headings(text)] == parse_page(text).headings
    got = sections.find(text, heading)
    assert got is not None and text[got.start:got.end] == section


@pytest.mark.engine_free
def test_a_heading_the_page_model_does_not_read_is_none():
    """pulldown-cmark reads ``text`` + `` ---`` below a quote's rule as a setext heading; the page
    model (mistune) does not: no section."""
    from gbrain.page import sections
    from gbrain.page.markdown import parse_page

    text = ">   ---\ntext\n ---\n"
    assert parse_page(text).headings == []
    assert sections.headings(text) == [] and sections.find(text, "text") is None


_PIECES = ["- item", "  ---", "---", "===", "  ===", "1. one", "   ---", "> x", ">   ---", "text", "", "# A", "#",
           "  - sub", "    ---", "\t---", "-\titem", "* a", " ---", "   ===", "- ", "  text2", "+ p", "  =", "- # h", "  #"]


@pytest.mark.engine_free
def test_headings_are_the_page_models_on_generated_lists_and_underlines():
    """Generated texts of list items, quotes and underlines (seeded: the same 600 each run): the
    section reader's headings are :attr:`Page.headings` (1,933 of 30,000 such texts differed)."""
    import random

    from gbrain.page import sections
    from gbrain.page.markdown import parse_page

    rnd = random.Random(1)
    for _ in range(600):
        text = "\n".join(rnd.choice(_PIECES) for _ in range(rnd.randint(2, 5))) + "\n"
        assert [h.plain for h in sections.headings(text)] == parse_page(text).headings, text


def _long_page(n: int, every: int) -> str:
    """``n`` ``##`` headings, a paragraph under each, and every ``every``-th one (and the first
    and the last line) after a ``>   ---`` / ``text`` / `` ---`` block, whose ``text`` is a heading
    to the quick scan (pulldown-cmark) and none to the page model (mistune)."""
    odd = ">   ---\nodd {}\n ---\n\n"
    parts = [odd.format("first")]
    for i in range(n):
        if i and i % every == 0:
            parts.append(odd.format(i))
        parts.append(f"## Heading {i}\n\nWords about {i} and [[note {i}]].\n\n")
    parts.append(odd.format("last").rstrip("\n") + "\n")
    return "".join(parts)


def _clear(sections) -> None:
    sections._parse.cache_clear()
    sections._ast.cache_clear()


@pytest.mark.engine_free
def test_a_long_page_whose_ends_disagree_reads_the_page_models_headings(monkeypatch):
    """A page of 1,500 headings where the quick scan reads a heading the page model does not at
    both ends (so the alignment cannot cut equal ends off; the whole square of it took ~0.7
    CPU-s, now a band: benchmarks/get_section.py): its headings are :attr:`Page.headings`, each
    found where it is; and on pages of such lines all through (the band must widen) the answers
    are the whole square's (``FULL_ALIGN``, the slow path)."""
    from gbrain.page import sections
    from gbrain.page.markdown import parse_page

    text = _long_page(1500, 10 ** 9)
    heads = sections.headings(text)
    assert [h.plain for h in heads] == parse_page(text).headings == [f"Heading {i}" for i in range(1500)]
    got = sections.find(text, "Heading 700")
    assert text[got.start:got.end] == "## Heading 700\n\nWords about 700 and [[note 700]].\n\n"
    for n, every in ((200, 7), (100, 2)):
        text = _long_page(n, every)
        _clear(sections)
        fast = sections.headings(text)
        monkeypatch.setattr(sections, "FULL_ALIGN", True)
        _clear(sections)
        slow = sections.headings(text)
        monkeypatch.setattr(sections, "FULL_ALIGN", False)
        _clear(sections)
        assert [h.plain for h in fast] == parse_page(text).headings
        assert fast == slow


@pytest.mark.engine_free
@pytest.mark.parametrize("band", [1, 4])
def test_the_banded_alignment_is_the_whole_squares(monkeypatch, band):
    """:func:`sections._heaviest` (a band proven to hold every best path, widened until it does)
    takes the same items as :func:`sections._heaviest_full` (the whole square, ties alike) on
    generated sequences: near-equal ones (a few items added, dropped, changed, or matching only
    loosely: weight 1 beside 1000) and unlike ones (seeded: the same 800 each run)."""
    import random

    from gbrain.page import sections

    monkeypatch.setattr(sections, "_BAND", band)
    rnd = random.Random(band)
    for case in range(800):
        a = [rnd.choice("ABCDEFabcdef") for _ in range(rnd.randint(0, 40))]
        b = list(a)
        for _ in range(rnd.randint(0, 6) if case % 4 else rnd.randint(0, 40)):
            k = rnd.randrange(len(b) + 1)
            op = rnd.random()
            if op < 0.4:
                b.insert(k, rnd.choice("ABCDEFabcdef"))
            elif b and op < 0.7:
                del b[min(k, len(b) - 1)]
            elif b:
                b[min(k, len(b) - 1)] = b[min(k, len(b) - 1)].swapcase()
        if case % 5 == 0:
            b = [rnd.choice("ABCDEFabcdef") for _ in range(rnd.randint(0, 40))]
        lo = rnd.randint(0, 3) if case % 3 == 0 else 0
        a, b = ["x"] * lo + a, ["x"] * lo + b

        def weight(i, j):
            return 1000 if a[i] == b[j] else 1 if a[i].lower() == b[j].lower() else 0

        assert sections._heaviest(lo, len(a), len(b), weight) == sections._heaviest_full(lo, len(a), len(b), weight), (a, b, lo)


@pytest.mark.engine_free
def test_extract_headings_gives_extract_links_headings():
    """The section reader takes the page model's headings without its links
    (:func:`markdown.extract_headings`): the same as :func:`markdown.extract_links` reads."""
    from gbrain.page.markdown import _parse_ast, extract_headings, extract_links, to_lf

    texts = [GUIDE, "# [[A|b]] *c* `d` <i>e</i>\n\n> ## q [x](y)\n\n- ## in item\n  - ### deeper %% c %%\n\n<div>\n# html\n</div>\n",
             "Setext **bold**\n===\n\n```\n# code\n```\n\n| # t |\n|---|\n\n#\n", _long_page(30, 4)]
    for text in texts:
        tokens = _parse_ast(to_lf(text))[0]
        assert extract_headings(tokens) == extract_links(tokens)[1], text


_HTML_PIECES = ["<div>", "  <div>", "</div>", "- <div>", "  </div>", "<!-- c -->", "  <!--", "-->", "- <p>x</p>", "<details>", "  # in"]


@pytest.mark.engine_free
def test_headings_are_the_page_models_on_generated_html_in_lists():
    """Generated texts of list items, underlines and HTML (seeded: the same 1,000 each run): where
    pulldown-cmark reads HTML (an HTML block that a list item's lines run into: ``- <div>`` then
    ``</div>`` at the margin) and mistune a heading (``# A``, or a setext ``-\\titem`` /
    ``    ---``), the section reader's headings are still :attr:`Page.headings` (191 of 20,000 such
    texts differed; 4 are left, an underline read as a heading's text: ``===`` under ``<!-- c -->``)."""
    import random

    from gbrain.page import sections
    from gbrain.page.markdown import parse_page

    rnd = random.Random(3)
    for _ in range(1000):
        text = "\n".join(rnd.choice(_PIECES + _HTML_PIECES) for _ in range(rnd.randint(2, 6))) + "\n"
        assert [h.plain for h in sections.headings(text)] == parse_page(text).headings, text


def test_a_part_is_not_cut_down_to_a_short_first_line_before_a_long_paragraph(brain):
    """s54 trial 67, left: a page whose second line is one paragraph longer than a part was read as
    a first part of 8 characters (`# Big\\n` plus nothing: the cut went back to the last line end
    in the window, however early). A part ends at a line end only when that keeps at least half
    the part; else after the last blank (space or tab) in the window's second half; else at the
    cap. The parts still join to the page, each at most ``max_chars``."""
    from gbrain.operations.core import part_end

    words = " ".join(f"w{i:05d}" for i in range(3_000))  # 20,999 characters, one line
    text = f"# Big\n{words}\nlast line\n"
    assert part_end(text, 0, 1_000) > 500 and text[part_end(text, 0, 1_000) - 1] == " "
    assert part_end("ab\n" + "x" * 5_000, 0, 1_000) == 1_000  # (no blank: the cap)
    assert part_end("a" * 600 + "\n" + "b" * 5_000, 0, 1_000) == 601  # (a line end keeping half: as before)
    ops.run("put", {"slug": "notes/big", "content": text}, ops.Context(), brain=brain)
    parts, offset = [], 0
    while offset is not None:
        r = get(brain, slug="notes/big", offset=offset, max_chars=1_000)
        parts.append(r["content"])
        offset = r["next_offset"]
    assert "".join(parts).rstrip("\n").endswith("last line") and all(len(p) <= 1_000 for p in parts)
    assert len(parts[0]) > 500 and all(len(p) > 500 for p in parts[:-2]), [len(p) for p in parts]


@pytest.mark.parametrize("nl", ["\n", "\r\n"])
@pytest.mark.parametrize("timeline_heading", [False, True])
def test_a_compiled_truth_section_ends_at_the_timeline_separator(brain, nl, timeline_heading):
    """s58 trial 72: the last section of the compiled truth (`## Open Threads`) ran on over the
    `---` separator (and, on a page with no `## Timeline` heading under it, over every timeline
    entry), so an agent that resolved a thread by replacing the section it read removed the
    separator: `changed`, no warning, and the page had no timeline any more. A heading's section
    in the compiled truth now ends where the compiled truth does."""
    threads = "## Open Threads\n\n- Call Bruno (raised 2026-11-30)\n\n"
    timeline = ("## Timeline\n\n" if timeline_heading else "") + "- **2026-11-30** | meeting — Met Ana.\n"
    text = ("---\ntitle: Ana\n---\n\n# Ana\n\n> Founder.\n\n" + threads + "---\n\n" + timeline).replace("\n", nl)
    ops.run("put", {"slug": "people/ana", "content": text}, ops.Context(), brain=brain)
    r = get(brain, slug="people/ana", section="Open Threads")
    assert r["content"] == threads.replace("\n", nl)
    assert r["section"]["lines"] == [9, 12] and r["offset"] == text.index("## Open Threads")
    assert get(brain, slug="people/ana", section="Ana")["content"] == ("# Ana\n\n> Founder.\n\n" + threads).replace("\n", nl)
    if timeline_heading:  # (a heading below the separator keeps its section)
        assert get(brain, slug="people/ana", section="Timeline")["content"] == timeline.replace("\n", nl)
    done = ops.run("put", {"slug": "people/ana", "replace": {r["content"]: f"## Open Threads{nl}{nl}- (none){nl}{nl}"},
                           "if_hash": r["content_hash"]}, ops.Context(surface="mcp"), brain=brain)
    assert done["changed"]
    assert [e["summary"] for e in ops.run("timeline", {"slug": "people/ana"}, ops.Context(), brain=brain)] == ["Met Ana."]


def test_a_bare_cr_pages_compiled_truth_section_ends_at_the_separator(brain):
    """Review of trial 72: the check that spares the page parse (a `---` line in the section?)
    read lines ended by `\\n` only, so on a page whose lines end in a bare CR the section still ran
    over the separator and the timeline, and a replace of it dropped them."""
    threads = "## Open Threads\r\r- Call Bruno (raised 2026-11-30)\r\r"
    text = "# Ana\r\r> Founder.\r\r" + threads + "---\r\r- **2026-11-30** | meeting — Met Ana.\r"
    ops.run("put", {"slug": "people/ana", "content": text}, ops.Context(), brain=brain)
    assert get(brain, slug="people/ana", section="Open Threads")["content"] == threads
