"""A link's label, what the linking page calls its target when that is not the target's name
(``[[acme-ventures|Acme, the seed fund]]``, ``[Sarah's fund](../companies/acme-ventures.md)``):
``links.label`` (v55 / Postgres v58), shown by ``links``/``backlinks`` as ``labels``, and search
evidence for the target (anchor text, ``keyword.anchor_evidence``). Both engines (``--engine postgres``)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.page.markdown import LABELS_MAX, parse_page
from gbrain.search import keyword
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences


def _labels(text: str, path: str = "notes/x.md", **kw) -> dict[tuple[str, str], list[str]]:
    return {(ln.kind, ln.target): ln.labels for ln in parse_page(text, path, **kw).links}


@pytest.mark.engine_free
def test_a_link_label_is_its_text_when_that_is_not_the_target_name():
    got = _labels("See [Sarah's fund](../companies/acme-ventures.md), [[acme-ventures|Acme,   the seed fund]], [[acme-ventures]],\n"
                  "[[acme-ventures|ACME VC]], [[acme-ventures|Acme, the seed fund]], [Acme Ventures](acme-ventures.md), [[b|B]].\n")
    assert got == {("markdown", "../companies/acme-ventures"): ["Sarah's fund"],
                   # each distinct label of a target's links, in order, white space runs one space
                   ("wiki", "acme-ventures"): ["Acme, the seed fund", "ACME VC"],
                   # the target's own name (case, separators) is no label
                   ("markdown", "acme-ventures"): [], ("wiki", "b"): []}
    # a property link's alias; an embed's; a label of no letter or digit is none
    got = _labels('---\nrelated: "[[acme|the fund]]"\n---\n![[diagram|Big picture]] [[c|→]] [[d|]]\n')
    assert got == {("property", "acme"): ["the fund"], ("embed", "diagram"): ["Big picture"], ("wiki", "c"): [], ("wiki", "d"): []}
    # at most LABELS_MAX labels per link, each at most LABEL_MAX characters
    many = " ".join(f"[[t|name {i}]]" for i in range(LABELS_MAX + 3)) + " [[t|" + "x" * 500 + "]]"
    assert _labels(many)[("wiki", "t")] == [f"name {i}" for i in range(LABELS_MAX)]
    assert _labels("[[t|" + "y" * 500 + "]]")[("wiki", "t")] == ["y" * 200]
    # a link in code is none; a Bear [[Note/Heading]] keeps its label under its note
    assert _labels("`[[t|code]]` [[t]]") == {("wiki", "t"): []}
    assert _labels("[[Roadmap/Q3|the plan]]", tag_syntax="bear") == {("wiki", "Roadmap"): ["the plan"]}


@pytest.mark.engine_free
def test_a_link_label_is_its_visible_text():
    """A label is the text a reader sees: emphasis, strikethrough and highlight marks and inline
    HTML tags dropped, character references read, NFKC-folded (``[**Sarah** fund](acme.md)``
    stored ``**Sarah** fund``); a label that is then the target's name is none."""
    got = _labels("See [**Sarah** fund](acme.md), [[b|the _seed_ ~~old~~ ==new== fund]], [<b>Big</b> &amp; co](c.md),\n"
                  "[ｆｕｌｌ　ｗｉｄｔｈ](d.md), [**E**](e.md), [<i>F</i>](f.md), [snake_case_name](g.md), [a * b](h.md), [[i|x < y]].\n")
    assert got == {("markdown", "acme"): ["Sarah fund"], ("wiki", "b"): ["the seed old new fund"], ("markdown", "c"): ["Big & co"],
                   ("markdown", "d"): ["full width"], ("markdown", "e"): [], ("markdown", "f"): [],
                   ("markdown", "g"): ["snake_case_name"], ("markdown", "h"): ["a * b"], ("wiki", "i"): ["x < y"]}
    # a heading's link (read by the full inline parser) gives the same label
    assert _labels("# See [**Sarah** fund](acme.md)\n") == {("markdown", "acme"): ["Sarah fund"]}


TREE = {
    "companies/acme-ventures.md": "# Acme Ventures\n\nA seed-stage investor based in Lisbon.\n",
    "companies/other.md": "# Other Capital\n\nAnother investor in Porto.\n",
    "people/sarah.md": "# Sarah\n\nSarah runs [Sarah's fund](../companies/acme-ventures.md); see [[acme-ventures|Acme, the seed fund]].\n",
}


def _tree(tmp_path, pages=TREE):
    tree = tmp_path / "t"
    for rel, text in pages.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    return tree


def _hits(b, q, **kw):
    return [(h["slug"], h["signals"]) for h in keyword.search(b.conn, q, limit=5, **kw)]


def test_labels_are_stored_listed_and_follow_the_linking_page(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, _tree(tmp_path))
        rows = b.conn.execute("SELECT kind, label FROM links ORDER BY id").fetchall()
        assert [tuple(r) for r in rows] == [("markdown", "Sarah's fund"), ("wiki", "Acme, the seed fund")]
        assert b.backlinks("acme-ventures")[0]["labels"] == ["Sarah's fund", "Acme, the seed fund"]
        assert b.links("people/sarah")[0]["labels"] == ["Sarah's fund", "Acme, the seed fund"]
        b.put("people/sarah", "# Sarah\n\nSarah runs [[acme-ventures|the Lisbon money]] and [[other]].\n")
        assert b.backlinks("acme-ventures")[0]["labels"] == ["the Lisbon money"]
        assert b.backlinks("other")[0]["labels"] == []
        assert fresh_import_differences(b) == {}


def test_search_finds_a_page_by_what_other_pages_call_it(tmp_path, db_path):
    """"Sarah's fund" is no word of *Acme Ventures*: the page linking it so is a hit, and its
    link's label makes the target one too (signal ``link_text``); a put of the linking page takes
    it away or gives it, at once; a type filter keeps it out when it selects other pages."""
    with Brain.open(db_path, create=True) as b:
        import_tree(b, _tree(tmp_path))
        got = _hits(b, "Sarah's fund")
        assert [s for s, _ in got] == ["people/sarah", "companies/acme-ventures"], got
        assert got[1][1] == ["link_text"]
        # a page's own words and its label's: the label's word not in its names lifts it
        got = _hits(b, "seed fund")
        assert got[0][0] == "people/sarah" and ("companies/acme-ventures", ["body", "link_text"]) in got, got
        before = {h["slug"]: h["score"] for h in keyword.search(b.conn, "fund", limit=5)}
        assert before["companies/acme-ventures"] > 0
        assert _hits(b, "Sarah's fund", prefix="people") == [("people/sarah", ["body", "path", "phrase", "title"])]
        b.put("people/sarah", "# Sarah\n\nSarah runs [[acme-ventures]].\n")
        assert [s for s, _ in _hits(b, "Sarah's fund")] == ["people/sarah"]
        b.put("people/jo", "# Jo\n\nJo likes [[other|Sarah's old fund]].\n")
        got = [s for s, _ in _hits(b, "Sarah's fund")]
        assert got[0] == "people/jo" and set(got) == {"people/sarah", "people/jo", "companies/other"}, got
        assert fresh_import_differences(b) == {}
    # off: the ranking before v55
    with Brain.open(db_path) as b:
        old = keyword.ANCHOR_WEIGHT
        keyword.ANCHOR_WEIGHT = 0
        try:
            assert set(s for s, _ in _hits(b, "Sarah's fund")) == {"people/sarah", "people/jo"}
        finally:
            keyword.ANCHOR_WEIGHT = old


def test_the_labels_weigh_the_query_words_they_hold(tmp_path, db_path):
    """Each query word the labels of a page's incoming links hold adds its IDF's share of the
    query's, times ``ANCHOR_WEIGHT``, whether or not the page's names hold it too; a page's
    links to itself are no evidence."""
    pages = {"companies/acme.md": "# Acme\n\nText. [[acme|Acme Rockets]]\n", "people/jo.md": "# Jo\n\nJo works at [[acme|Acme Corp]] in corp land.\n",
             "people/al.md": "# Al\n\nAl is in corp land too.\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, _tree(tmp_path, pages))
        got = {h["slug"]: h for h in keyword.search(b.conn, "acme corp", limit=5)}
        assert "link_text" in got["companies/acme"]["signals"]
        assert [s for s, _ in _hits(b, "rockets")] == ["companies/acme"]  # (its own text; its own label no evidence)
        assert "link_text" not in _hits(b, "rockets")[0][1]
        old = keyword.ANCHOR_WEIGHT
        keyword.ANCHOR_WEIGHT = 0
        try:
            base = {h["slug"]: h["score"] for h in keyword.search(b.conn, "acme corp", limit=5)}
        finally:
            keyword.ANCHOR_WEIGHT = old
        # both words: share 1, over the floor ANCHOR_REF_IDF when the query's IDF is less (here:
        # each word in 2 of 3 pages, IDF 0.47: the words tell little which page a label means)
        idf = 2 * keyword.math.log(1 + 1.5 / 2.5)
        assert got["companies/acme"]["score"] == pytest.approx(base["companies/acme"] + keyword.ANCHOR_WEIGHT * idf / max(idf, keyword.ANCHOR_REF_IDF), abs=1e-3)
        assert keyword.ANCHOR_REF_IDF > idf
        assert got["people/jo"]["score"] == pytest.approx(base["people/jo"])


def test_a_label_that_is_one_of_the_page_names_is_no_evidence(tmp_path, db_path):
    """A label naming the page by its title, an alias or its H1 name (msdocs: "PKI design
    considerations using AD CS", the H1 of a page titled "… in Windows Server") is stored and
    listed, but adds nothing in search: the name evidence counts those words already."""
    pages = {"companies/acme.md": "---\ntitle: Acme Rocket Works\naliases: [ARW Ltd]\n---\n# Rocket works in Windows Server\n\nText.\n",
             "people/jo.md": "# Jo\n\nJo: [[acme|Acme Rocket Works]], [[acme|ARW ltd]], [[acme|rocket-works in windows server]].\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, _tree(tmp_path, pages))
        assert b.backlinks("companies/acme")[0]["labels"] == ["Acme Rocket Works", "ARW ltd", "rocket-works in windows server"]
        for q in ("acme rocket works", "ARW", "windows server"):
            assert all("link_text" not in sig for _, sig in _hits(b, q)), q
        b.put("people/al", "# Al\n\nAl: [[acme|the rocket people]].\n")
        assert "link_text" in dict(_hits(b, "rocket people"))["companies/acme"]


def test_v55_fills_the_labels_of_stored_links_keeping_their_ids(tmp_path, db_path):
    """A brain made before v55 (Postgres v58) has no ``links.label``: on open the column comes and
    the labels of the links of the pages that may hold one are set, every link row keeping its id;
    the brain then equals a fresh import. Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    pages = {**TREE, "notes/plain.md": "# Plain\n\nOnly [[Sarah]] here.\n",
             "notes/prop.md": '---\nrelated: "[[acme-ventures|the Lisbon fund]]"\n---\n# Prop\n'}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, _tree(tmp_path, pages))
        want = sorted(tuple(r) for r in b.conn.execute("SELECT id, kind, target, label FROM links"))
        assert sum(1 for r in want if r[3]) == 3
        with b.transaction():  # as a brain before v55 (and so before v56's index of the labelled links)
            b.conn.execute("DROP INDEX idx_links_labelled")
            b.conn.execute("ALTER TABLE links DROP COLUMN label")
            _rewind(b.conn, pg._link_labels, dbmod._m55_link_labels)
    with Brain.open(db_path) as b:
        assert sorted(tuple(r) for r in b.conn.execute("SELECT id, kind, target, label FROM links")) == want
        assert fresh_import_differences(b) == {}
        assert [s for s, _ in _hits(b, "Lisbon fund")][:1] == ["notes/prop"]


def test_the_labels_of_the_best_hits_links_are_read_by_their_own_index(tmp_path, db_path):
    """``idx_links_labelled`` (v57 / Postgres v61): the links holding a label, by target. The
    read of the labels of the links to the best hits went through ``idx_links_to``, visiting
    every row linking there (1.45 → 0.17 ms on a 20,000-page make_brain brain); an existing
    brain gets it on open, both engines."""
    from gbrain.storage import db as dbmod

    def has_index(b) -> bool:
        if getattr(b.conn, "dialect", "sqlite") == "postgres":
            return b.conn.execute("SELECT count(*) FROM pg_indexes WHERE indexname = 'idx_links_labelled'").fetchone()[0] == 1
        return b.conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'idx_links_labelled'").fetchone()[0] == 1

    with Brain.open(db_path, create=True) as b:
        import_tree(b, _tree(tmp_path))
        assert has_index(b)
        if getattr(b.conn, "dialect", "sqlite") == "sqlite":
            seen: list[str] = []
            b.conn.set_trace_callback(seen.append)
            try:
                assert "companies/acme-ventures" in [s for s, _ in _hits(b, "Sarah's fund")]
            finally:
                b.conn.set_trace_callback(None)
            (q,) = [s for s in seen if "SELECT to_page_id, label FROM links WHERE to_page_id IN" in s]
            plan = " ".join(str(r[-1]) for r in b.conn.execute("EXPLAIN QUERY PLAN " + q))
            assert "idx_links_labelled" in plan, plan
        with b.transaction():  # as a brain before v57 / Postgres v61
            b.conn.execute("DROP INDEX idx_links_labelled")
            if getattr(b.conn, "dialect", "sqlite") == "postgres":
                b.conn.execute("DELETE FROM gbrain_schema WHERE version >= 61")
            else:
                b.conn.execute(f"PRAGMA user_version = {dbmod.MIGRATIONS.index(dbmod._m57_labelled_links)}")
    with Brain.open(db_path) as b:
        assert has_index(b)
        assert fresh_import_differences(b) == {}


def test_a_brain_before_v55_whose_earlier_migrations_derive_links_again_upgrades(tmp_path, db_path):
    """A migration before v55 (Postgres v58) that re-derives pages (v53's graphless journals:
    :func:`~gbrain.storage.db.rederive_page_ids`, rows and all) writes their link rows while
    ``links`` has no ``label`` yet: the upgrade of such a brain failed (``table links has no
    column named label``). Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    pages = {**TREE, "vault/journals/2026_11_28.md": "- met [[Sarah|our Sarah]] about the fund\n",
             "vault/notes/a.md": "# A\n\nSee [[2026_11_28|that day]].\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, _tree(tmp_path, pages))
        want = sorted(tuple(r) for r in b.conn.execute("SELECT id, kind, target, label FROM links"))
        with b.transaction():  # as a brain before v53 (Postgres v55): no label, no name_folds yet
            b.conn.execute("DROP INDEX idx_links_labelled")
            b.conn.execute("ALTER TABLE links DROP COLUMN label")
            _rewind(b.conn, pg._graphless_journals, dbmod._m53_graphless_journals)
    with Brain.open(db_path) as b:
        got = sorted(tuple(r) for r in b.conn.execute("SELECT id, kind, target, label FROM links"))
        assert sorted(r[1:] for r in got) == sorted(r[1:] for r in want)  # (v53 wrote the journal page's links again: new ids)
        assert ("wiki", "Sarah", "our Sarah") in [r[1:] for r in got]
        assert fresh_import_differences(b) == {}


def test_postgres_reads_the_labels_in_one_statement_as_the_reads_by_id(tmp_path, db_path, monkeypatch):
    """On Postgres the link-text evidence's reads (the labels from and to the best hits, the
    names of the pages they reach, the filter) are one statement (``keyword._anchor_reads_pg``:
    two to four round trips before), the links from the hits narrowed in SQL as ``may_hold``
    narrows them (a non-ASCII label, or one holding a word's shortest form in any case; a ``_``
    or ``%`` in a word is no wildcard): the same hits and scores as the reads by id."""
    pages = {**TREE, "notes/jo.md": "# Jo\n\nJo likes [[other|Sarah's old fund]], [[acme-ventures|the Łódź fund_x]], [[x9|100% FUND]].\n",
             "notes/x9.md": "# X9\n\nPlain.\n", "notes/y.md": "# Y\n\n[[x9|fundx]] [[other|fu_d]] [[notes/jo|a Fund of jo]]\n"}
    with Brain.open(db_path, create=True) as b:
        import_tree(b, _tree(tmp_path, pages))
        if getattr(b.conn, "dialect", "sqlite") != "postgres":
            pytest.skip("Postgres' one statement (SQLite reads by id in the process)")
        queries = [("Sarah's fund", {}), ("fund", {}), ("FUND", {}), ("łódź", {}), ("fund_x", {}), ("100% fund", {}), ("fu_d", {}),
                   ("fund", {"prefix": "notes"}), ("seed fund", {"type": "company"})]
        sent: list[str] = []
        execute = b.conn.execute
        monkeypatch.setattr(b.conn, "execute", lambda sql, *a: sent.append(sql) or execute(sql, *a))
        got = {q: [(h["slug"], h["score"], h["signals"]) for h in keyword.search(b.conn, q, limit=10, **kw)] for q, kw in queries}
        assert sum(s.startswith("WITH f AS (SELECT l.to_page_id") for s in sent) == len(queries)
        assert not [s for s in sent if " FROM links WHERE " in s]
        monkeypatch.setattr(keyword, "_anchor_reads_pg", keyword._anchor_reads)
        want = {q: [(h["slug"], h["score"], h["signals"]) for h in keyword.search(b.conn, q, limit=10, **kw)] for q, kw in queries}
        assert got == want
        assert any("link_text" in sig for hits in got.values() for _, _, sig in hits)


def test_v59_writes_the_stored_labels_again_as_visible_text(tmp_path, db_path):
    """A brain before v59 (Postgres v63) stored a label as the link parser gave it, markup and
    all (``**Sarah** fund``, ``<b>Big</b> &amp; co``, fullwidth letters; a compatibility
    character of no letter's own, ``①``, made none): on open those labels are written again as
    their visible text, every link row keeping its id, and the brain equals a fresh import.
    Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    pages = {**TREE, "notes/md.md": "# Md\n\nSee [**Sarah** fund](../companies/acme-ventures.md) and [<b>Big</b> &amp; co](other.md).\n",
             "notes/wide.md": "# Wide\n\n[ｌｉｓｂｏｎ　ｆｕｎｄ](../companies/acme-ventures.md), [①](../companies/other.md), [[Sarah|_our_ Sarah]]\n"}
    old = {("notes/md", "markdown", "../companies/acme-ventures"): "**Sarah** fund", ("notes/md", "markdown", "other"): "<b>Big</b> &amp; co",
           ("notes/wide", "markdown", "../companies/acme-ventures"): "ｌｉｓｂｏｎ ｆｕｎｄ", ("notes/wide", "markdown", "../companies/other"): "",
           ("notes/wide", "wiki", "Sarah"): "_our_ Sarah"}
    q = "SELECT l.id, p.slug, l.kind, l.target, l.label FROM links l JOIN pages p ON p.id = l.from_page_id"
    with Brain.open(db_path, create=True) as b:
        import_tree(b, _tree(tmp_path, pages))
        want = sorted(tuple(r) for r in b.conn.execute(q))
        got = {r[1:4]: r[4] for r in want}
        assert {k: got[k] for k in old} == {("notes/md", "markdown", "../companies/acme-ventures"): "Sarah fund",
                                            ("notes/md", "markdown", "other"): "Big & co",
                                            ("notes/wide", "markdown", "../companies/acme-ventures"): "lisbon fund",
                                            ("notes/wide", "markdown", "../companies/other"): "1", ("notes/wide", "wiki", "Sarah"): "our Sarah"}
        with b.transaction():  # as a brain before v59 / Postgres v63: the labels as written
            for (slug, kind, target), label in old.items():
                b.conn.execute("UPDATE links SET label = ? WHERE kind = ? AND target = ? AND from_page_id = (SELECT id FROM pages WHERE slug = ?)",
                               (label, kind, target, slug))
            _rewind(b.conn, pg._visible_labels, dbmod._m59_visible_labels)
        assert fresh_import_differences(b) != {}
    with Brain.open(db_path) as b:
        assert sorted(tuple(r) for r in b.conn.execute(q)) == want
        assert fresh_import_differences(b) == {}
