"""SQLite v84 / Postgres v92 (``--engine postgres`` runs this file on Postgres): a CRLF or a lone
CR inside an HTML tag is white space, as LF is (CommonMark's line endings; ``keyword._HTML_TAG``):
``<span\\r\\nclass="x">`` is a tag pulldown-cmark renders as HTML, but the index and snippets of a
CRLF page read it as text (``span``, ``class`` and ``x`` indexed and shown) where the same page
with LF line ends had it dropped. Found reviewing v83 (CRLF in code ranges), which left it."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync import verify
from gbrain.sync.importer import import_tree

from conftest import write_tree

#: LF texts whose tags cross a line end (in the tag's white space, not in a quoted value)
TAG_SHAPES = [
    'a <span\nclass="q">w</span> b\n',
    '<img\nsrc="x.png"\nalt="y"> c\n',
    'a <i data-x="1"\n  id="z">it</i> c <br\n/>\n',
    'x <span class="a"\n  id="b">y</span> `code <i\n>` z\n',
    'text\n\n<div\nclass="box">\nin\n</div>\n',
]


def _spelled(text: str, nl: str) -> str:
    return text.replace("\n", nl)


@pytest.mark.engine_free
@pytest.mark.parametrize("nl", ["\r\n", "\r"])
@pytest.mark.parametrize("text", TAG_SHAPES)
def test_a_tag_across_a_crlf_line_end_is_the_lf_tag(text, nl):
    t = _spelled(text, nl)
    at = lambda i: len(t[:i].replace(nl, "\n"))  # (t's position i in text)
    assert [(at(a), at(z), inline) for a, z, inline in keyword.tag_spans(t)] == keyword.tag_spans(text), t
    st, sl = keyword.search_text(t), keyword.search_text(text)
    assert (st if st is not None else t).split() == (sl if sl is not None else text).split(), t


@pytest.mark.engine_free
@pytest.mark.parametrize("text", TAG_SHAPES)
def test_the_crlf_tags_dropped_are_the_ones_pulldown_cmark_renders(text):
    pyromark = pytest.importorskip("pyromark")
    t = _spelled(text, "\r\n")
    html = pyromark.html(t)
    assert len(keyword.tag_spans(t)) == len(keyword.tag_spans(text)) > 0, t
    for a, z, _ in keyword.tag_spans(t):
        assert t[a:z].replace("\r\n", "\n") in html.replace("\r\n", "\n"), (t, t[a:z], html)


CRLF_TAG_NOTES = {
    "t/crlf.md": "# CRLF\r\n\r\nSee <span\r\nclass=\"quokka\">zebrafish</span> here.\r\n",
    "t/cr.md": "# CR\r\rSee <span\rclass=\"numbat\">wallaby</span> here.\r",
    "t/lf.md": "# LF\n\nSee <span\nclass=\"dingo\">platypus</span> here.\n",
    "t/val.md": "# Val\r\n\r\nSee <span title=\"a\r\nvalued\">kept</span> here.\r\n",
    "t/x.md": "# X\n\nother\n",
}


def _found(b, query: str) -> list[str]:
    return sorted(h["slug"] for h in keyword.search(b.conn, query) if h["type"] != "canvas")


def test_a_tag_across_a_crlf_line_end_is_not_indexed_nor_shown(tmp_path, db_path):
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", CRLF_TAG_NOTES))
        assert _found(b, "quokka") == _found(b, "numbat") == _found(b, "dingo") == _found(b, "valued") == []
        for word, slug in (("zebrafish", "t/crlf"), ("wallaby", "t/cr"), ("platypus", "t/lf")):
            hit = [h for h in keyword.search(b.conn, word) if h["type"] != "canvas"]
            assert [h["slug"] for h in hit] == [slug], hit
            assert "span" not in hit[0]["snippet"] and "class" not in hit[0]["snippet"], hit


# ---- the migration ---------------------------------------------------------------------------------

@pytest.mark.engine_free
def test_the_v84_candidates_hold_every_text_whose_reading_changed():
    # (a seeded differential: every text search_text or tag_spans reads differently with the pattern
    # before v84 is selected by the SQL pre-filter, db._CR_TAG_TEXT, and db.cr_tag_differs; 60,000
    # such texts at review: 709 changed, none missed)
    import random
    import sqlite3

    from gbrain.storage import db as dbmod

    c = sqlite3.connect(":memory:")
    dbmod.cr_tag_differs("\r<")
    new, old = keyword._HTML_TAG, dbmod._HTML_TAG_V83
    pieces = ["<", ">", "/", "/>", "a", "b", "span", "div", "i", " ", "\t", "\n", "\r\n", "\r", "=", '"', "'", "x", "class",
              "`", "```", "\r\n\r\n", "=\r", "\r>", "y"]
    rnd = random.Random(20261206)
    changed = 0
    for _ in range(3000):
        t = "".join(rnd.choice(pieces) for _ in range(rnd.randint(3, 40)))
        now = (keyword.search_text(t), keyword.tag_spans(t))
        keyword._HTML_TAG = old
        try:
            before = (keyword.search_text(t), keyword.tag_spans(t))
        finally:
            keyword._HTML_TAG = new
        if now != before:
            changed += 1
            assert dbmod.cr_tag_differs(t), t
            assert c.execute(f"SELECT {dbmod._CR_TAG_TEXT.format(c='?1')}", (t, *dbmod._CR_TAG_PARAMS)).fetchone()[0], t
    assert changed > 10
    assert dbmod.cr_tag_differs('<a b=\r>')  # (a tag before, text now: no match of the pattern now holds its CR)


def test_a_brain_made_before_v84_reads_crlf_tags_after_the_upgrade(tmp_path, db_path, monkeypatch):
    """A brain whose index read a tag across a CRLF or lone CR as text (SQLite v83 / Postgres v91)
    after the migration: those tags unindexed, in pages and canvas cards, the rows a fresh import
    gives; the other pages untouched."""
    import json

    from conftest import assert_upgraded, brain_at_version, version_before
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    canvas = {"nodes": [{"id": "c1", "type": "text", "text": "a <b\r\nclass=\"cardtag\">Cardword</b>", "x": 0, "y": 0, "width": 9, "height": 9}],
              "edges": []}
    dbmod.cr_tag_differs("\r<")
    held = version_before(dbmod._m84_crlf_tags, pg._crlf_tags)  # (SQLite v83 / Postgres v91)
    with monkeypatch.context() as m:
        m.setattr(keyword, "_HTML_TAG", dbmod._HTML_TAG_V83)  # (the index before v84: LF the only line end in a tag)
        with brain_at_version(db_path, *held, made_now=True) as b:
            assert import_tree(b, write_tree(tmp_path / "v", CRLF_TAG_NOTES))["ok"]
            b.save_file("boards/b.canvas", json.dumps(canvas, ensure_ascii=False).encode())
            assert _found(b, "quokka") == ["t/crlf"] and _found(b, "numbat") == ["t/cr"] and _found(b, "dingo") == []
            assert [h.get("node") for h in keyword.search(b.conn, "cardtag") if h["type"] == "canvas"] == ["c1"]
            untouched = b.conn.execute("SELECT slug, search_body, search_timeline FROM pages "
                                       "WHERE slug IN ('t/lf', 't/val', 't/x') ORDER BY slug").fetchall()
    with Brain.open(db_path) as b:
        c = b.conn
        assert_upgraded(c, *held)
        assert _found(b, "quokka") == _found(b, "numbat") == _found(b, "valued") == []
        assert _found(b, "zebrafish") == ["t/crlf"] and _found(b, "wallaby") == ["t/cr"]
        assert not [h for h in keyword.search(c, "cardtag") if h["type"] == "canvas"]
        assert [h.get("node") for h in keyword.search(c, "cardword") if h["type"] == "canvas"] == ["c1"]
        assert c.execute("SELECT slug, search_body, search_timeline FROM pages "
                         "WHERE slug IN ('t/lf', 't/val', 't/x') ORDER BY slug").fetchall() == untouched
        assert verify.fresh_import_differences(b) == {}
