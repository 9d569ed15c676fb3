"""The Obsidian Help trial's search findings (a 1,780-page vault, 8 languages): a query of nothing
but syntax marks is empty on every surface; `query` says when no page holds the question's words."""
from __future__ import annotations

import json

import pytest

from gbrain.core.brain import Brain
from gbrain.search import hybrid, keyword
from gbrain.sync.importer import import_tree

from conftest import gbrain, write_tree

PAGES = {
    "notes/alpha.md": "# Alpha\n\nThe *bold* sync plan, with \"quotes\" and a - dash: here.\n",
    "notes/beta.md": "# Beta\n\nAnother note about gardens & rivers | pipes!\n",
}


@pytest.fixture
def vault_db(tmp_path, db_path):
    tree = write_tree(tmp_path / "vault", PAGES)
    assert gbrain("import", str(tree), "--db", str(db_path)).returncode == 0
    return str(db_path)


@pytest.mark.engine_free
@pytest.mark.parametrize("q", ["*", "**", '""', '"', '" "', '"*"', "* *", "-", ":", "&", "|", "!", "<->", "& | ! <->", " * \" "])
def test_a_query_of_only_syntax_marks_is_empty(q):
    assert keyword.empty_query(q)


@pytest.mark.parametrize("q", ["*", '""', "& | ! <->"])
def test_a_query_of_only_syntax_marks_is_refused_on_every_surface(vault_db, q):
    r = gbrain("search", "--db", vault_db, "--json", "--", q)
    assert r.returncode == 2 and json.loads(r.stdout) == {"error": "the query is empty", "exit_code": 2, "kind": "bad_input"}, (q, r.stdout)
    r = gbrain("query", "--db", vault_db, "--json", "--", q)
    assert r.returncode == 2 and json.loads(r.stdout) == {"error": "the question is empty", "exit_code": 2, "kind": "bad_input"}, (q, r.stdout)
    r = gbrain("call", "--db", vault_db, "search", json.dumps({"query": q}))
    assert r.returncode == 2, r.stdout


@pytest.mark.engine_free
@pytest.mark.parametrize("q", ["(", "^", "🧠", "sync", "AND", "* sync", '"sync"', "x*"])
def test_words_and_symbols_are_not_empty(q):
    assert not keyword.empty_query(q)


def test_library_functions_find_nothing_for_an_empty_query(vault_db):
    with Brain.open(vault_db) as b:
        assert keyword.search(b.conn, "*") == [] and keyword.keyword_candidates(b.conn, '""') == []


@pytest.mark.engine_free
def test_query_says_when_no_page_holds_the_words(tmp_path):
    b = Brain.open(tmp_path / "brain.db")
    for path, text in PAGES.items():
        b.save_page(path, text)
    b.set_config("embedding_model", "fake-16")
    from gbrain.search.embeddings import get_model
    from gbrain.search.vectors import embed_pages, plan_embed, select_pages

    model = get_model("fake-16", b.config())
    _, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "all"))
    embed_pages(b.conn, model, work)
    r = hybrid.query(b, "zorblatwidget", limit=5)
    assert r["hits"] and all(h["signals"] == ["vector"] for h in r["hits"])
    assert any("no page contains" in n for n in r["notes"]), r["notes"]
    r = hybrid.query(b, "gardens", limit=5)
    assert not any("no page contains" in n for n in r["notes"]) and r["hits"][0]["slug"] == "notes/beta"
    b.close()
    out = gbrain("query", "--db", str(tmp_path / "brain.db"), "zorblatwidget")
    assert out.returncode == 0
    assert b"no page contains" in out.stderr and b"; vector)" in out.stdout, out
