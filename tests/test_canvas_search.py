"""A canvas's words are found by keyword search, as Obsidian's own search finds them: a text
card's markdown and a group's label (``canvas_cards``, kept by triggers on ``files``: every
write path, fresh import equal; docs/storage.md "Canvases"). A hit names the canvas by its path
(``type`` ``canvas``) and the card (``node``); a file node's path and a link node's URL are
addresses, not read text, so they are not searched (as a page's link addresses are not)."""
from __future__ import annotations

import json

import pytest

from gbrain.core.brain import Brain

from conftest import gbrain_in_process


def _canvas(*cards: tuple[str, str, str]) -> bytes:
    nodes = []
    for i, (kind, key, text) in enumerate(cards):
        nodes.append({"id": f"n{i}", "type": kind, key: text, "x": 0, "y": 100 * i, "width": 200, "height": 60})
    return json.dumps({"nodes": nodes, "edges": []}, indent="\t").encode()


BOARD = _canvas(("text", "text", "# Plan\n\nThe **quarterly roadmap** for [[Alpha]]"),
                ("group", "label", "Zeppelin backlog"),
                ("file", "file", "Notes/Fjordhaven.md"),
                ("link", "url", "https://example.com/glockenspiel"))


def _search(db, *words: str) -> list[dict]:
    r = gbrain_in_process("search", *words, "--json", "--db", str(db))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _vault(tmp_path):
    v = tmp_path / "vault"
    (v / "Notes").mkdir(parents=True)
    (v / "Notes" / "Alpha.md").write_text("# Alpha\n\nThe alpha project.\n")
    (v / "Notes" / "Fjordhaven.md").write_text("# Fjordhaven\n\nA town.\n")
    (v / "Boards").mkdir()
    (v / "Boards" / "Plan.canvas").write_bytes(BOARD)
    return v


def test_search_finds_a_text_card_and_a_group_label(tmp_path, db_path):
    v = _vault(tmp_path)
    assert gbrain_in_process("import", str(v), "--db", str(db_path)).returncode == 0
    hits = _search(db_path, "roadmap")
    assert [(h["slug"], h["type"], h.get("node")) for h in hits] == [("Boards/Plan.canvas", "canvas", "n0")]
    assert hits[0]["title"] == "Plan" and "roadmap" in hits[0]["snippet"].lower() and hits[0]["highlights"]
    s, e = hits[0]["highlights"][0]
    assert hits[0]["snippet"][s:e].lower() == "roadmap"
    assert [(h["slug"], h.get("node")) for h in _search(db_path, "zeppelin")] == [("Boards/Plan.canvas", "n1")]
    # addresses are not read text: a file node's path, a link node's URL
    assert [h["slug"] for h in _search(db_path, "glockenspiel")] == []
    assert [h["slug"] for h in _search(db_path, "fjordhaven")] == ["Notes/Fjordhaven"]
    # a page and a canvas holding the word both show; the filters of pages leave canvases out
    both = {h["slug"] for h in _search(db_path, "alpha")}
    assert both == {"Notes/Alpha", "Boards/Plan.canvas"}, both
    assert [h["slug"] for h in _search(db_path, "roadmap", "--type", "note")] == []
    assert [h["slug"] for h in _search(db_path, "roadmap", "--prefix", "Notes")] == []
    assert [h["slug"] for h in _search(db_path, "roadmap", "--prefix", "boards")] == ["Boards/Plan.canvas"]


def test_query_keyword_mode_finds_a_card(tmp_path, db_path):
    v = _vault(tmp_path)
    assert gbrain_in_process("import", str(v), "--db", str(db_path)).returncode == 0
    r = gbrain_in_process("query", "quarterly roadmap", "--mode", "keyword", "--json", "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    items = json.loads(r.stdout)["items"]
    assert [(h["slug"], h["type"]) for h in items] == [("Boards/Plan.canvas", "canvas")]


def test_sync_edit_delete_and_rename_of_a_canvas_change_what_search_finds(tmp_path, db_path):
    from gbrain.sync.verify import fresh_import_differences

    v = _vault(tmp_path)
    assert gbrain_in_process("sync", str(v), "--db", str(db_path)).returncode == 0
    assert [h["slug"] for h in _search(db_path, "roadmap")] == ["Boards/Plan.canvas"]
    (v / "Boards" / "Plan.canvas").write_bytes(_canvas(("text", "text", "The yearly harvest"), ("group", "label", "Zeppelin backlog")))
    assert gbrain_in_process("sync", str(v), "--db", str(db_path)).returncode == 0
    assert _search(db_path, "roadmap") == []
    assert [h["slug"] for h in _search(db_path, "harvest")] == ["Boards/Plan.canvas"]
    (v / "Boards" / "Plan.canvas").rename(v / "Boards" / "Moved.canvas")
    assert gbrain_in_process("sync", str(v), "--db", str(db_path)).returncode == 0
    assert [h["slug"] for h in _search(db_path, "harvest")] == ["Boards/Moved.canvas"]
    with Brain.open(db_path) as b:
        assert fresh_import_differences(b) == {}
    (v / "Boards" / "Moved.canvas").unlink()
    assert gbrain_in_process("sync", str(v), "--db", str(db_path)).returncode == 0
    assert _search(db_path, "harvest") == [] and _search(db_path, "zeppelin") == []
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT count(*) FROM canvas_cards").fetchone()[0] == 0


def test_save_file_and_bad_json_and_card_order(db_path):
    with Brain.open(db_path, create=True) as b:
        b.save_file("Bad.canvas", b"{not json roadmap")
        b.save_file("Bom.canvas", b"\xef\xbb\xbf" + _canvas(("text", "text", "roadmap with a bom")))
        b.save_file("Nodes.canvas", b'{"nodes": {"a": {"type": "text", "text": "roadmap"}}}')
        b.save_file("notes.txt", b'{"nodes":[{"id":"t","type":"text","text":"roadmap"}]}')
    assert [(h["slug"], h.get("node")) for h in _search(db_path, "roadmap")] == [("Bom.canvas", "n0")]


def test_paging_and_ranking_beside_pages(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("Roadmap", "# Roadmap\n\nThe plan.\n")  # a page the query names comes first
        b.put("notes/other", "# Other\n\nA roadmap mentioned once among many other words here and there.\n")
        b.save_file("Board.canvas", _canvas(("text", "text", "roadmap roadmap"), ("text", "text", "roadmap and more words")))
    hits = _search(db_path, "roadmap")
    assert hits[0]["slug"] == "Roadmap"
    assert [h["slug"] for h in hits].count("Board.canvas") == 1  # a canvas once, by its best card
    assert next(h for h in hits if h["slug"] == "Board.canvas")["node"] == "n0"
    paged = _search(db_path, "roadmap", "--limit", "1") + json.loads(
        gbrain_in_process("search", "roadmap", "--json", "--limit", "2", "--db", str(db_path)).stdout)[1:]
    assert [h["slug"] for h in paged] == [h["slug"] for h in hits[:2]]
    from gbrain.search.keyword import search

    with Brain.open(db_path) as b:  # a cursor's next page (offset) continues the one ranking
        whole = [h["slug"] for h in search(b.conn, "roadmap", limit=10)]
        assert [h["slug"] for i in range(len(whole)) for h in search(b.conn, "roadmap", limit=1, offset=i)] == whole


def test_the_upgrade_fills_the_cards_of_canvases_stored_before(db_path):
    """A brain that stored canvases before SQLite v43 / Postgres v44 finds their text after the upgrade."""
    with Brain.open(db_path, create=True) as b:
        b.save_file("Old.canvas", BOARD)
        pg = getattr(b.conn, "dialect", "sqlite") == "postgres"
        with b.transaction():
            for t in ("files_canvas_ai", "files_canvas_au", "files_canvas_ad"):
                b.conn.execute(f"DROP TRIGGER IF EXISTS {t}" + (" ON files" if pg else ""))
            if not pg:
                b.conn.execute("DROP TABLE canvas_fts")
            b.conn.execute("DROP TABLE canvas_cards")
            if pg:
                b.conn.execute("DELETE FROM gbrain_schema WHERE version >= 44")  # (a brain before v44 has no later one)
        if not pg:
            b.conn.execute("PRAGMA user_version = 42")
    assert [(h["slug"], h["node"]) for h in _search(db_path, "roadmap")] == [("Old.canvas", "n0")]


def test_hybrid_query_ranks_a_card_beside_embedded_pages(db_path):
    """Canvases have no vectors: a card is a keyword candidate counted for both sides, as a page not
    embedded yet (hybrid.fuse's unscored); `vector` mode finds none."""
    from gbrain import operations as ops
    from gbrain.search.vectors import VectorIndex

    VectorIndex.forget()
    with Brain.open(db_path, create=True) as b:
        b.set_config("embedding_model", "fake-16")
        b.put("Alpha", "# Alpha\n\nThe alpha project and its people.\n")
        b.put("Beta", "# Beta\n\nSomething else entirely.\n")
        b.save_file("Boards/Plan.canvas", BOARD)
        assert ops.run("embed", {}, brain=b)["pages"] == 2
        r = ops.run("query", {"question": "quarterly roadmap"}, brain=b)
        assert r["mode"] == "hybrid", r
        top = r["items"][0]
        assert (top["slug"], top["type"], top["node"], top["signals"]) == ("Boards/Plan.canvas", "canvas", "n0", ["canvas"])
        assert "roadmap" in top["passage"].lower()
        assert not any("no page contains" in n for n in r["notes"])
        assert all(h["type"] != "canvas" for h in ops.run("query", {"question": "quarterly roadmap", "mode": "vector"}, brain=b)["items"])
        assert all(h["type"] != "canvas" for h in ops.run("query", {"question": "quarterly roadmap", "type": "note"}, brain=b)["items"])



def _statements(conn, monkeypatch) -> list[str]:
    """The statements ``conn`` runs from now on (SQLite: its trace callback, until reset, without
    the statements FTS5 runs inside one, ``-- …``; Postgres: its execute, until ``monkeypatch`` undoes it)."""
    sent: list[str] = []
    if getattr(conn, "dialect", "sqlite") == "postgres":
        execute = conn.execute
        monkeypatch.setattr(conn, "execute", lambda sql, *a, **k: sent.append(sql) or execute(sql, *a, **k))
    else:
        conn.set_trace_callback(lambda sql: None if sql.startswith("--") else sent.append(sql))
    return sent


def test_a_brain_without_canvases_pays_no_statement_for_them(db_path, monkeypatch):
    """Whether any canvas card is stored is read with the statistics search reads anyway (SQLite's
    FTS5 row count, Postgres' counts statement): a search or keyword query runs as many statements
    as it would with no canvas search at all; a canvas another connection stores is still found."""
    from gbrain import operations as ops
    from gbrain.search import keyword
    from gbrain.search import vectors
    from gbrain.search.vectors import VectorIndex

    with Brain.open(db_path, create=True) as b:
        b.set_config("embedding_model", "fake-16")
        b.put("notes/alpha", "# Alpha\n\nThe quarterly roadmap of the alpha project.\n")
        b.put("notes/beta", "# Beta\n\nSomething else entirely.\n")
        assert ops.run("embed", {}, brain=b)["pages"] == 2
        counts = {}
        for stub in (False, True):
            with monkeypatch.context() as m:
                if stub:
                    m.setattr(keyword, "canvas_hits", lambda *a, **k: [])
                sent = _statements(b.conn, m)
                assert [h["slug"] for h in keyword.search(b.conn, "quarterly roadmap", limit=10)] == ["notes/alpha"]
                n_search = len(sent)
                r = ops.run("query", {"question": "quarterly roadmap", "mode": "keyword"}, brain=b)
                assert [h["slug"] for h in r["items"]] == ["notes/alpha"], r
                n_query = len(sent) - n_search
                VectorIndex.forget()
                vectors._STALE.clear()  # (the same statements each time: no memo of either)
                r = ops.run("query", {"question": "quarterly roadmap"}, brain=b)
                assert r["mode"] == "hybrid" and "notes/alpha" in {h["slug"] for h in r["items"]}, r
                counts[stub] = (n_search, n_query, len(sent) - n_search - n_query)
                if not hasattr(b.conn, "dialect"):
                    b.conn.set_trace_callback(None)
        assert counts[False] == counts[True], counts
        with Brain.open(db_path) as other:  # another connection (another process alike) stores a canvas
            other.save_file("Boards/Plan.canvas", BOARD)
        assert {h["slug"] for h in keyword.search(b.conn, "quarterly roadmap", limit=10)} == {"Boards/Plan.canvas", "notes/alpha"}
        r = ops.run("query", {"question": "quarterly roadmap", "mode": "keyword"}, brain=b)
        assert {h["slug"] for h in r["items"]} == {"Boards/Plan.canvas", "notes/alpha"}, r


def _cards(b, path: str) -> list[tuple]:
    return [tuple(r) for r in b.conn.execute(
        "SELECT c.node, c.kind, c.text FROM canvas_cards c JOIN files f ON f.id = c.file_id WHERE f.path = ? ORDER BY c.id", (path,))]


def test_odd_json_reads_the_same_on_both_engines(db_path, monkeypatch):
    """Python's reading of the canvas decides its cards (as the links' reading, page/canvas.py:
    load_canvas), never an engine's JSON functions: a key given twice is its last value (as
    JavaScript's JSON.parse, Obsidian's reader, takes it), a NUL or a lone surrogate escaped in a
    string is U+FFFD (neither engine stores it), an id that is no string its JSON text, a node that
    is no object skipped; NaN/Infinity (no JSON), nesting too deep for the reader and a canvas
    stored in pieces (over blobs.BIG) give no cards."""
    from gbrain.storage import blobs

    with Brain.open(db_path, create=True) as b:
        b.save_file("Nul.canvas", b'{"nodes": [{"id": "a", "type": "text", "text": "nul\\u0000roadmap \\ud800x"}]}')
        b.save_file("Twice.canvas", b'{"nodes": [{"id": "t", "type": "text", "text": "first", "text": "second roadmap"}],'
                                    b' "nodes": [{"id": "u", "type": "text", "text": "later roadmap", "type": "group", "label": "lab"}]}')
        b.save_file("Odd.canvas", b'{"nodes": [1, "x", null, [{"type": "text", "text": "inner"}], {"id": 7, "type": "text", "text": "seven"},'
                                  b' {"type": "group", "label": "no id"}, {"id": "g", "type": "group", "label": 5}]}')
        b.save_file("NaN.canvas", b'{"nodes": [{"id": "n", "type": "text", "text": "roadmap", "x": NaN}]}')
        deep = b'{"nodes": [{"id": "d", "type": "text", "text": "roadmap"}], "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"
        assert b.save_file("Deep.canvas", deep)  # (its warning: read as no JSON)
        monkeypatch.setattr(blobs, "BIG", 4096)
        big = _canvas(("text", "text", "card roadmap"), *[("text", "text", "x" * 100)] * 60)
        assert len(big) > 4096
        b.save_file("Big.canvas", big)
        assert b.conn.execute("SELECT pieces FROM files WHERE path = 'Big.canvas'").fetchone()[0] > 0
        assert _cards(b, "Nul.canvas") == [("a", "text", "nul\ufffdroadmap \ufffdx")]
        assert _cards(b, "Twice.canvas") == [("u", "group", "lab")]
        assert _cards(b, "Odd.canvas") == [("7", "text", "seven"), ("", "group", "no id")]
        for p in ("NaN.canvas", "Deep.canvas", "Big.canvas"):
            assert _cards(b, p) == [], p
    assert [(h["slug"], h["node"]) for h in _search(db_path, "roadmap")] == [("Nul.canvas", "a")]


def test_a_cards_link_addresses_are_not_searched(db_path):
    """A card's text is indexed as a page's is (keyword.search_text): a link's URL, an aliased wiki
    link's target and an embed's file name are blanked; the words a reader reads are found."""
    card = "See [quokka notes](https://wombat.example/numbat/path) and [[Zebrafish|okapi]] ![[platypus.png]] ![[Axolotl]]"
    with Brain.open(db_path, create=True) as b:
        b.save_file("Board.canvas", _canvas(("text", "text", card), ("group", "label", "[tapir](../Dugong.md)")))
        b.put("Plain", "# Plain\n\nNothing here.\n")
    for word in ("wombat", "numbat", "zebrafish", "platypus", "dugong", "https"):
        assert [h["slug"] for h in _search(db_path, word)] == [], word
    for word in ("quokka", "okapi", "axolotl"):
        assert [(h["slug"], h["node"]) for h in _search(db_path, word)] == [("Board.canvas", "n0")], word
    assert [(h["slug"], h["node"]) for h in _search(db_path, "tapir")] == [("Board.canvas", "n1")]
    with Brain.open(db_path) as b:  # the card's text itself is kept as written
        assert _cards(b, "Board.canvas")[0] == ("n0", "text", card)


def test_a_cjk_word_inside_a_cards_run_is_found(db_path):
    """CJK text in a card is indexed as a page's (its bigrams: keyword.cjk_bigrams; a word glued
    to CJK text: keyword.search_words), so a word inside a run is found, as in a page."""
    with Brain.open(db_path, create=True) as b:
        b.save_file("Board.canvas", _canvas(("text", "text", "データ同期処理の設計"), ("group", "label", "重跑gen后"),
                                            ("text", "text", "会議の議事録")))
        b.put("Page", "# Page\n\nデータ同期処理の設計\n")
    for word, node in (("同期", "n0"), ("データ同期", "n0"), ("処理", "n0"), ("gen", "n1"), ("議事", "n2")):
        hits = _search(db_path, word)
        assert ("Board.canvas", node) in [(h["slug"], h.get("node")) for h in hits], (word, hits)
    assert "Page" in [h["slug"] for h in _search(db_path, "同期")]  # (as a page finds it)
    assert [h["slug"] for h in _search(db_path, '"期処理の設計です"')] == []  # a quoted run no text holds
    # unquoted, a run no text holds is searched as its words apart (keyword.cjk_loosened, trial37)
    assert set(h["slug"] for h in _search(db_path, "期処理の設計です")) == {"Page", "Board.canvas"}


def test_the_canvas_migrations_run_again_on_a_brain_set_back(db_path):
    """A brain whose version was set back before v43 / pg_v44 (as tests of older migrations do)
    runs them again over today's tables: the cards come out as Python reads them, indexed."""
    card = "[quokka](https://wombat.example/x) データ同期"
    with Brain.open(db_path, create=True) as b:
        b.save_file("Old.canvas", _canvas(("text", "text", card)))
        pg = getattr(b.conn, "dialect", "sqlite") == "postgres"
        if pg:
            with b.transaction():
                b.conn.execute("DELETE FROM gbrain_schema WHERE version >= 44")
        else:
            b.conn.execute("PRAGMA user_version = 42")
    with Brain.open(db_path) as b:
        assert _cards(b, "Old.canvas") == [("n0", "text", card)]
    for word, found in (("quokka", True), ("wombat", False), ("同期", True)):
        assert [h["slug"] for h in _search(db_path, word)] == (["Old.canvas"] if found else []), word


@pytest.mark.engine_free
def test_copy_carries_the_cards_both_ways(pg_url, tmp_path):
    """`gbrain copy` copies canvas_cards row for row (its files' inserts write none): the target's
    triggers index them (SQLite canvas_fts, Postgres tsv), so a card is found on either engine."""
    a, c = str(tmp_path / "a.db"), str(tmp_path / "c.db")
    card = "[quokka](https://wombat.example/x) データ同期"
    with Brain.open(a, create=True) as b:
        b.save_file("Boards/Plan.canvas", _canvas(("text", "text", card), ("group", "label", "Zeppelin backlog")))
    for src, dst in ((a, pg_url), (pg_url, c)):
        r = gbrain_in_process("copy", "--from", src, "--to", dst)
        assert r.returncode == 0, r.stderr
    for db in (pg_url, c):
        with Brain.open(db) as b:
            assert _cards(b, "Boards/Plan.canvas") == [("n0", "text", card), ("n1", "group", "Zeppelin backlog")]
        for word, node in (("quokka", "n0"), ("同期", "n0"), ("zeppelin", "n1"), ("wombat", None)):
            assert [(h["slug"], h["node"]) for h in _search(db, word)] == ([("Boards/Plan.canvas", node)] if node else []), (db, word)
    r = gbrain_in_process("check", "--db", c)
    assert r.returncode == 0, r.stderr


STOP_CARDS = (("text", "text", "Don't ship it before the review"), ("group", "label", "Zeppelin plans for the roadmap"),
              ("text", "text", "The roadmap of the quarterly roadmap and the zeppelin"))


def test_a_cards_stop_words_are_found(db_path):
    """A card's words 'english' drops (its stop words: ``before``, ``don``) are found on both engines,
    as in a page (SQLite's FTS5 keeps every word; Postgres indexes them as written since pg_v82)."""
    with Brain.open(db_path, create=True) as b:
        b.save_file("Board.canvas", _canvas(*STOP_CARDS))
    assert [(h["slug"], h["node"]) for h in _search(db_path, "before")] == [("Board.canvas", "n0")]
    assert [(h["slug"], h["node"]) for h in _search(db_path, "don't")] == [("Board.canvas", "n0")]
    assert [h["slug"] for h in _search(db_path, "after")] == []


@pytest.mark.engine_free
def test_postgres_v82_indexes_a_cards_stop_words(pg_url, monkeypatch):
    """A brain made at v81 (a card's stop words out of its tsv) finds them after the migration; an
    ordinary query's canvas and page scores stay (a card's BM25 length leaves the stop words out:
    keyword._CARD_LEN), and no page's vectors change (gb_alias_tsv gives v81's vectors)."""
    from gbrain.storage import pg

    pages = "SELECT slug, search_tsv::text, search_names_tsv::text, search_len FROM pages ORDER BY slug"
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 81)
    with Brain.open(pg_url, create=True) as b:
        b.save_file("Board.canvas", _canvas(*STOP_CARDS))
        b.put("Notes/Plan", "# The roadmap\n\nDon't fly the zeppelin before the roadmap is done; it's an idea now.\n")
        before = b.conn.execute(pages).fetchall()
    ordinary = {q: [(h["slug"], h.get("node"), h["score"]) for h in _search(pg_url, q)] for q in ("roadmap", "zeppelin roadmap", "quarterly")}
    assert [h["slug"] for h in _search(pg_url, "before")] == ["Notes/Plan"]  # (the card's not yet)
    monkeypatch.undo()
    with Brain.open(pg_url) as b:
        assert pg.schema_version(b.conn) == pg.PG_SCHEMA_VERSION >= 82
        assert b.conn.execute(pages).fetchall() == before
        with b.transaction():  # what a write gives every page now
            b.conn.execute("UPDATE pages SET title = title")
        assert b.conn.execute(pages).fetchall() == before
    assert {q: [(h["slug"], h.get("node"), h["score"]) for h in _search(pg_url, q)] for q in ordinary} == ordinary
    assert {(h["slug"], h.get("node")) for h in _search(pg_url, "before")} == {("Notes/Plan", None), ("Board.canvas", "n0")}


def test_a_rare_words_card_is_read_before_cards_of_a_stop_word(db_path, monkeypatch):
    """A query of a rare word and a word Postgres' 'english' drops but search keeps (``now``,
    ``before``: not keyword.STOP_WORDS) finds the card holding the rare word when more cards than
    keyword.CANVAS_CARDS_READ hold the other: the cards read are chosen by the terms' weight, and
    pg_v82 indexes a card's stop words at weight A, which ``ts_rank``'s default weights count 10×
    a card's other words (weight D); the rare card was left out of the cards read (v81 found it: no
    stop word was indexed). Both engines."""
    from gbrain.search import keyword

    monkeypatch.setattr(keyword, "CANVAS_CARDS_READ", 4)
    cards = [("text", "text", f"Sync is now faster on mobile, item {i}; now and before, now again") for i in range(8)]
    with Brain.open(db_path, create=True) as b:
        b.save_file("Board.canvas", _canvas(*cards, ("text", "text", "The zeppelin hangar plan")))
        hits = keyword.canvas_hits(b.conn, "zeppelin now", limit=3)
        assert [(h["slug"], h["node"]) for h in hits][:1] == [("Board.canvas", "n8")]
        assert [(h["slug"], h["node"]) for h in keyword.canvas_hits(b.conn, "zeppelin before", limit=3)] == [("Board.canvas", "n8")]


def _many_distinct_words(n: int = 60_000) -> str:
    """``n`` distinct words of 14 letters (~900 KB): their 'english' stems (``…at``) fit a
    tsvector (1 MB), their 'simple' lexemes (as written) do not."""
    def word(i: int) -> str:
        s = ""
        for _ in range(8):
            i, r = divmod(i, 26)
            s += "bcdfghjklmnpqrstvwxzaeiouy"[r]
        return s + "ations"
    return " ".join(word(i * 7919 + 13) for i in range(n))


@pytest.mark.engine_free
def test_postgres_a_card_of_many_distinct_words_saves_and_migrates(pg_url, monkeypatch):
    """A card whose text has ~60,000 distinct words (a word list, a glossary): v81 indexed it
    ('english' stems fit the 1 MB tsvector); v82 must open such a brain and save such a canvas."""
    from gbrain.storage import pg

    text = _many_distinct_words() + " before now"
    board = _canvas(("text", "text", text), ("text", "text", "Zeppelin roadmap"))
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 81)
    with Brain.open(pg_url, create=True) as b:
        b.save_file("Board.canvas", board)
        assert b.conn.execute("SELECT count(*) FROM canvas_cards WHERE tsv <> ''").fetchone()[0] == 2
    monkeypatch.undo()
    with Brain.open(pg_url) as b:  # (the v82 migration: every card indexed again)
        assert pg.schema_version(b.conn) == pg.PG_SCHEMA_VERSION
        b.save_file("Other.canvas", board)
        assert b.conn.execute("SELECT count(*) FROM canvas_cards").fetchone()[0] == 4
        # (its stop words too, at weight A: the long text's taken piece by piece, gb_stop_long)
        assert b.conn.execute("SELECT count(*) FROM canvas_cards WHERE tsv @@ 'before:A & now:A'::tsquery").fetchone()[0] == 2


def test_a_canvas_the_query_names_ranks_as_a_page_so_named(db_path):
    """A canvas is found by its cards' words only: `Roadmap.canvas`, whose cards never say
    "roadmap", was no hit for "roadmap" (and `Plans/Roadmap 2027.canvas` scored 0.0 for "Roadmap
    canvas"), below the page *Q3 roadmap*. Its file name is its name, as a page's title: named
    exactly it earns the exact-name bonus, its name's words the name evidence."""
    with Brain.open(db_path, create=True) as b:
        b.put("Q3 roadmap", "# Q3 roadmap\n\nThe plan for the quarter.\n")
        b.put("notes/other", "# Other\n\nA roadmap mentioned once among words.\n")
        b.save_file("Roadmap.canvas", _canvas(("text", "text", "Ship the sync engine"), ("text", "text", "Hire two people")))
        b.save_file("Plans/Roadmap 2027.canvas", _canvas(("text", "text", "pricing items"),))
        b.put("Roadmap", "# Roadmap\n\nThe roadmap page, about the roadmap.\n")
    slugs = [h["slug"] for h in _search(db_path, "roadmap")]
    assert slugs[:3] == ["Roadmap", "Roadmap.canvas", "Q3 roadmap"], slugs
    assert "Plans/Roadmap 2027.canvas" in slugs
    hit = next(h for h in _search(db_path, "Roadmap 2027") if h["slug"] == "Plans/Roadmap 2027.canvas")
    assert hit["score"] > 1 and "title" in hit["signals"] and hit["node"] == "n0"
    assert [h["slug"] for h in _search(db_path, "roadmap", "--prefix", "Plans")] == ["Plans/Roadmap 2027.canvas"]


def test_a_word_naming_a_canvas_is_no_typo(db_path):
    """A canvas's name is evidence as a page's title (keyword._canvas_names), so a word only a
    canvas's file name holds is no typo: `Quarterplan` found `Quarterplan.canvas` and still
    warned `did you mean: "quarterplat"? (no page holds "Quarterplan")`, a page's word one letter off."""
    with Brain.open(db_path, create=True) as b:
        b.put("a", "# Alpha\n\nthe quarterplat is here\n")
        b.save_file("Quarterplan.canvas", _canvas(("text", "text", "ship it"), ("text", "text", "hire")))
    r = gbrain_in_process("search", "Quarterplan", "--json", "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    assert [h["slug"] for h in json.loads(r.stdout)] == ["Quarterplan.canvas"]
    assert b"did you mean" not in r.stderr, r.stderr


@pytest.mark.parametrize("empty", [b'{"nodes": [], "edges": []}', b"{}", b""])
def test_an_empty_canvas_the_query_names_is_found(db_path, empty):
    """A canvas named by the query was found through its first card: `Roadmap.canvas` with no
    card (just made in Obsidian, every card deleted) was no hit for "roadmap" though
    `Plan.canvas`'s cards were found. Named, it is a hit of its own (no card: node None, no
    snippet), ranked by its name as one with cards; so in a brain holding no card at all
    (keyword.CANVAS_FACT_SQL: still no statement of its own)."""
    with Brain.open(db_path, create=True) as b:
        b.put("notes/q3", "# Q3\n\nThe roadmap for the quarter.\n")
        b.save_file("Roadmap.canvas", empty)
    hits = _search(db_path, "roadmap")
    assert [h["slug"] for h in hits] == ["Roadmap.canvas", "notes/q3"], hits
    assert hits[0]["node"] is None and hits[0]["type"] == "canvas" and "title" in hits[0]["signals"]
    with Brain.open(db_path) as b:
        b.save_file("Boards/Plan.canvas", BOARD)
    slugs = [h["slug"] for h in _search(db_path, "roadmap")]
    assert slugs[0] == "Roadmap.canvas" and sorted(slugs[1:]) == ["Boards/Plan.canvas", "notes/q3"], slugs
    r = gbrain_in_process("query", "roadmap", "--mode", "keyword", "--json", "--db", str(db_path))
    assert r.returncode == 0 and "Roadmap.canvas" in {h["slug"] for h in json.loads(r.stdout)["items"]}, r.stdout


def test_whether_a_brain_without_cards_holds_a_canvas_is_read_from_an_index(db_path):
    """A brain with no canvas card reads whether it holds a canvas file (an empty one the query may
    name) with the statistics every search reads (:data:`keyword.CANVAS_FACT_SQL`): that was a scan
    of every stored file's path, on each search (review r2: 50,000 attachments, 0.8 → 7.7 ms CPU
    a search on SQLite, 1.0 → 24 ms server CPU on Postgres). Now a partial index of the canvas
    paths answers it (``idx_files_canvas``, SQLite v86 / Postgres v94): the plan reads that index,
    not the files, and the answer is the same."""
    from gbrain.search import keyword

    with Brain.open(db_path, create=True) as b:
        for i in range(300):
            b.save_file(f"attachments/img{i:03d}.png", b"\x89PNG" + bytes([i % 256]))
        pg = getattr(b.conn, "dialect", "sqlite") == "postgres"
        sql = f"SELECT {keyword.CANVAS_FACT_SQL}"
        if pg:
            b.conn.execute("ANALYZE files")
            plan = " ".join(r[0] for r in b.conn.execute("EXPLAIN " + sql).fetchall())
        else:
            plan = " ".join(str(r[-1]) for r in b.conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall())
        assert "idx_files_canvas" in plan, plan
        assert b.conn.execute(sql).fetchone()[0] == 0
        b.save_file("Boards/Roadmap.CANVAS", b"{}")  # (any case of the suffix, as before)
        assert b.conn.execute(sql).fetchone()[0] == 2
