"""A conflict copy (``name.conflict-YYYYMMDDTHHMMSS.md``, both versions of one page kept by sync)
never ranks above the page it copies, in ``search`` and ``query``, on both engines; nor does a
copy a file-sync tool made (Syncthing's ``NAME.sync-conflict-…``, Dropbox's ``NAME (conflicted
copy …)``, ownCloud's ``NAME_conflict-…``).

Found by a user trial: an agent searching ``Yara Kowalski`` got the conflict copy first (the same
title and words: a tie, broken by id) and wrote its next edit to the copy.
"""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.page.slugs import conflict_original
from gbrain.search import embeddings as emb
from gbrain.search import hybrid, keyword
from gbrain.search.vectors import embed_pages, plan_embed, select_pages
from gbrain.sync.importer import import_tree

from conftest import search_brain, write_tree

PAGE = "---\ntitle: Yara Kowalski\ntype: person\n---\n# Yara Kowalski\n\nYara Kowalski leads platform at Lumen Labs.\n"
COPY = PAGE.replace(" leads platform at Lumen Labs", " left")  # the other side's edit: shorter, so BM25 ranks it higher
NOTES = {
    # the copy's path sorts (and its id comes) first, so a tie would put it first
    "people/a-yara-kowalski.conflict-20261202T015712.md": "---\ntitle: Other\n---\n# Other\n\nnothing about her\n",
    "people/yara-kowalski.conflict-20261202T015712.md": COPY,
    "people/yara-kowalski.md": PAGE,
    "people/yara-kowalski.conflict-20261202T020101-2.md": COPY + "\nYara Kowalski Yara Kowalski\n",
    "people/solo.conflict-20261202T015712.md": "# Quillon Marsh\n\nQuillon Marsh notes.\n",
}


brain = search_brain(NOTES)


@pytest.mark.engine_free
def test_conflict_original_reads_the_mark_sync_writes():
    from gbrain.sync.engine import conflict_copy_path

    for p in ("people/ana.md", "people/Ana Lima.MD", "people/.raw/ana.json", "a b/c.d.md"):
        assert conflict_original(conflict_copy_path(p, 1764640000.0)) == p
        assert conflict_original(conflict_copy_path(p, 1764640000.0, lambda c: "-2" not in c)) == p
        assert conflict_original(p) is None
    assert conflict_original("notes/x.conflict-20261202T015712.later.md") is None


def test_search_puts_each_copy_right_below_its_page(brain):
    hits = [h["slug"] for h in keyword.search(brain.conn, "Yara Kowalski", limit=10)]
    assert hits[0] == "people/yara-kowalski", hits
    assert set(hits[1:3]) == {"people/yara-kowalski.conflict-20261202T015712", "people/yara-kowalski.conflict-20261202T020101-2"}, hits
    # a copy whose page is not among the hits keeps its place: it may be the only match
    assert [h["slug"] for h in keyword.search(brain.conn, "Quillon Marsh", limit=5)] == ["people/solo.conflict-20261202T015712"]


def test_query_puts_each_copy_right_below_its_page(brain):
    model = emb.FakeEmbedding("fake-copies", 32)
    _, work = plan_embed(brain.conn, model, select_pages(brain.conn, model.model_id, "all"))
    embed_pages(brain.conn, model, work, transaction=brain.transaction)
    for mode in ("hybrid", "keyword"):
        hits = [h["slug"] for h in hybrid.query(brain, "Yara Kowalski", model=model, limit=5, mode=mode)["hits"]]
        assert hits[0] == "people/yara-kowalski", (mode, hits)
        assert hits.index("people/yara-kowalski.conflict-20261202T020101-2") < 3, (mode, hits)


@pytest.mark.engine_free
@pytest.mark.parametrize("stem", ["L" * 245, "é" * 122, "notes/" + "日本" * 40 + "x"])
def test_a_long_names_copy_is_cut_to_255_bytes_and_still_known_as_its_copy(stem):
    from gbrain.sync.engine import MAX_FILE_NAME_BYTES, conflict_copy_path, is_conflict_copy_of

    path = stem + ".md"
    for taken in (lambda c: False, lambda c: "-2" not in c):
        cp = conflict_copy_path(path, 1764640000.0, taken)
        name = cp.rsplit("/", 1)[-1]
        assert len(name.encode("utf-8")) <= MAX_FILE_NAME_BYTES and cp.endswith(".md") and ".conflict-" in cp
        assert is_conflict_copy_of(cp, path) and not is_conflict_copy_of(cp, "other.md")
        assert cp.startswith(path[: path.rfind("/") + 1])
    assert not is_conflict_copy_of(stem[:-5] + ".conflict-20251202T014640.md", path)  # cut, but not by the rule


def test_a_conflict_on_a_long_note_name_is_a_copy_not_a_crash(tmp_path, db_path):
    """A 248-byte note name is legal (Obsidian allows 255); its conflict copy's name was 270
    bytes, so every later sync and watch died with a traceback ("File name too long")."""
    from conftest import gbrain

    vault = tmp_path / "v"
    vault.mkdir()
    name = "L" * 245
    (vault / f"{name}.md").write_text("body\n")
    assert gbrain("import", str(vault)).returncode == 0
    assert gbrain("sync", str(vault)).returncode == 0
    with open(vault / f"{name}.md", "a") as f:
        f.write("offline edit\n")
    assert gbrain("put", name, input="body\nedit in the brain\n").returncode == 0  # the same place: a conflict
    r = gbrain("sync", str(vault))
    assert r.returncode == 3 and b"Traceback" not in r.stderr, r.stderr.decode()[-2000:]
    copies = [p.name for p in vault.iterdir() if ".conflict-" in p.name]
    assert len(copies) == 1 and len(copies[0].encode()) <= 255
    assert (vault / f"{name}.md").read_text() == "body\noffline edit\n"
    r = gbrain("sync", str(vault))
    assert r.returncode in (0, 3) and b"Traceback" not in r.stderr, r.stderr.decode()[-2000:]


def test_a_file_system_refusal_is_one_line_not_a_traceback(tmp_path, db_path):
    from conftest import gbrain

    assert gbrain("put", "notes/a", input="# A\n").returncode == 0
    r = gbrain("export", "--dir", str(tmp_path / ("x" * 300)))
    err = r.stderr.decode()
    assert r.returncode == 1 and "Traceback" not in err and "File name too long" in err and len(err.strip().splitlines()) == 1, err


def test_postgres_search_reads_copies_and_names_with_its_ranking(brain, monkeypatch):
    """On Postgres the ranking statement also gives the candidates' conflict-copy paths and the
    names of those a name field matched: a search is three statements (counts, ranking, snippets),
    the exact-name check and the ones its hits need, not five (a names statement and a copies
    statement each cost a round trip), same hits. Whether any canvas card is stored is read by the
    counts statement (a brain without canvases pays no statement for them)."""
    if getattr(brain.conn, "dialect", "sqlite") != "postgres":
        pytest.skip("Postgres' statements (SQLite ranks through FTS5)")
    sent = []
    execute = brain.conn.execute
    monkeypatch.setattr(brain.conn, "execute", lambda sql, *a: sent.append(sql) or execute(sql, *a))
    hits = [h["slug"] for h in keyword.search(brain.conn, "Yara Kowalski", limit=10)]
    assert hits[0] == "people/yara-kowalski", hits
    assert set(hits[1:3]) == {"people/yara-kowalski.conflict-20261202T015712", "people/yara-kowalski.conflict-20261202T020101-2"}, hits
    # the counts, the ranking, the snippets (the text of a hit they mark nothing in) and the
    # originals of the copies found, by path: no statement of the names or the copies of the ids
    known = ("SELECT s.pages", "WITH ", "SELECT p.id, p.slug", "SELECT id, title, size", "SELECT id, path FROM pages WHERE path IN")
    # and cheap indexed ones added since: for a query naming a page, whether it is named as
    # typed or by a plural spelling (4e08045, keyword._exact_weights); for a short query, the best
    # FORM_DEPTH candidates' text by id, read once for the exact-form evidence (ed2c810,
    # keyword._phrase_evidence, the read phrase evidence already made for longer queries); and
    # the labels of the links from and to the best hits, with the names of the pages they reach,
    # for the link-text evidence (51129b7, keyword.anchor_evidence: one statement,
    # _anchor_reads_pg; it was two, and two more where labels were found); and the name fields that
    # matched, read again for the returned hits alone to label their signals as SQLite does
    # (keyword._pg_name_signals: by id, at most one)
    since = ("SELECT id FROM pages WHERE id IN (", "SELECT id, title, compiled_truth, timeline, search_aliases, path, search_words FROM pages WHERE id IN (",
             "WITH f AS (SELECT l.to_page_id AS id, l.label FROM links l WHERE", "SELECT p.id, CASE WHEN t.f & 1 <> 0 THEN gb_alias_tsv(")
    assert [s[:60] for s in sent if not s.startswith(known + since)] == []
    assert sum(s.startswith(known[:3]) and not s.startswith(since[2]) for s in sent) == 3
    assert all(sum(s.startswith(x) for s in sent) <= 1 for x in since)
    assert sum(s.startswith(since[2]) for s in sent) == 1


#: a note beside the conflict copies file-sync tools made of it (two machines edited it before
#: they synced; ``page/slugs.py: sync_tool_copy``): the copies are shorter, so BM25 ranks them higher
TOOL_NOTES = {
    "people/yara-kowalski.md": PAGE,
    "people/yara-kowalski.sync-conflict-20250101-123456-ABCDEFG.md": COPY,
    "people/yara-kowalski (Laptop's conflicted copy 2025-01-01).md": COPY,
    "people/yara-kowalski_conflict-20250101-123456.md": COPY + "\nYara Kowalski Yara Kowalski\n",
    "people/solo (conflicted copy 2025-01-01).md": "# Quillon Marsh\n\nQuillon Marsh notes.\n",
}
TOOL_COPIES = sorted(p[:-3] for p in TOOL_NOTES if p != "people/yara-kowalski.md" and "solo" not in p)


@pytest.fixture
def tool_brain(tmp_path, db_path):
    tree = write_tree(tmp_path / "vault", TOOL_NOTES)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def test_search_puts_a_sync_tools_copy_right_below_its_page(tool_brain):
    """A copy Syncthing, Dropbox or ownCloud made ranks below the page it copies, as gbrain's own."""
    hits = [h["slug"] for h in keyword.search(tool_brain.conn, "Yara Kowalski", limit=10)]
    assert hits[0] == "people/yara-kowalski", hits
    assert sorted(hits[1:4]) == TOOL_COPIES, hits
    assert [h["slug"] for h in keyword.search(tool_brain.conn, "Quillon Marsh", limit=5)] == ["people/solo (conflicted copy 2025-01-01)"]


def test_query_puts_a_sync_tools_copy_right_below_its_page(tool_brain):
    model = emb.FakeEmbedding("fake-copies", 32)
    _, work = plan_embed(tool_brain.conn, model, select_pages(tool_brain.conn, model.model_id, "all"))
    embed_pages(tool_brain.conn, model, work, transaction=tool_brain.transaction)
    for mode in ("hybrid", "keyword"):
        hits = [h["slug"] for h in hybrid.query(tool_brain, "Yara Kowalski", model=model, limit=5, mode=mode)["hits"]]
        assert hits[0] == "people/yara-kowalski", (mode, hits)


def test_search_text_says_which_hit_is_a_copy_and_of_what(brain):
    """A copy whose page is no candidate keeps its rank (a team's trial: the rewritten *Home*'s old
    words found three conflict copies first, told apart from the page by the ``.conflict-`` in their
    names alone). The text answer says so after the title; a page's own line is as before."""
    from gbrain import operations as ops

    def text_of(query: str) -> str:
        return ops.REGISTRY["search"].text(ops.run("search", {"query": query, "limit": 5}, ops.Context(), brain=brain), {})

    text = text_of("Quillon Marsh")
    assert text.splitlines()[0].endswith("Quillon Marsh  (conflict copy of people/solo)"), text
    text = text_of("Yara Kowalski")
    first, *_ = text.splitlines()
    assert first.startswith("people/yara-kowalski  (") and "conflict copy" not in first, text
    assert "(conflict copy of people/yara-kowalski)" in text, text


def test_query_text_says_which_hit_is_a_copy_too(brain):
    """``query``'s text answer (keywords alone here: no embeddings) marks a copy as ``search``'s does."""
    from gbrain import operations as ops

    r = ops.run("query", {"question": "Quillon Marsh", "limit": 5}, ops.Context(), brain=brain)
    text = ops.REGISTRY["query"].text(r, {})
    assert text.splitlines()[0].endswith("Quillon Marsh  (conflict copy of people/solo)"), text
