"""``search`` and ``query`` take ``--tag`` and ``--prefix`` (a folder) beside ``--type``: the
filters ``list --tag`` and lint's folders use (storage/filters.py), applied inside the ranking,
before the limit, on both engines and every surface (CLI, call, pipe, MCP)."""
from __future__ import annotations

import json

import anyio
import pytest

from conftest import gbrain_in_process as gbrain  # what the commands do, not the process: no process per call (~0.25 CPU-s each)
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import NotFound
from gbrain.search import keyword


def _brain(db) -> None:
    """12 notes that say ``alpha`` often (the best hits, written first: the lowest ids), then 6
    people tagged ``team/eng`` that say it once, a ``peoplex/`` page and a ``People/Sub`` page."""
    with Brain.open(db) as b:
        for i in range(12):
            b.put(f"notes/n{i:02d}", f"# Note {i}\n\nalpha alpha alpha beta {i}\n")
        for i in range(6):
            b.put(f"people/p{i}", f"---\ntags: [team/eng]\n---\n# Person {i}\n\nalpha gamma and some more words here {i}\n")
        b.put("peoplex/q", "---\ntags: [teams]\n---\n# Q\n\nalpha once\n")
        b.put("People/Sub/deep", "# Deep\n\nalpha in a subfolder\n")


def _run(db, op, args, warn=None):
    return ops.run(op, args, ops.Context(db=str(db), on_warning=warn))


def _slugs(hits) -> list[str]:
    return [h["slug"] for h in (hits["hits"] if isinstance(hits, dict) else hits)]


@pytest.fixture
def small_bounds(monkeypatch, request):
    """Candidate bounds far below the matches (``alpha`` is in every page), on both engines: an
    unfiltered window (the first pages in table order) would hold only notes."""
    monkeypatch.setattr(keyword, "RANK_BOUND", 5)
    monkeypatch.setattr(keyword, "RANK_WINDOW", 4)
    monkeypatch.setattr(keyword, "PG_RANK_BOUND", 5)
    monkeypatch.setattr(keyword, "PG_CANDIDATES", 4)


@pytest.mark.parametrize("args,want", [
    ({"prefix": "people"}, "people/"),
    ({"prefix": "People/"}, "people/"),
    ({"tag": "team"}, "people/"),  # a parent tag selects its nested tags, as list --tag does
    ({"tag": "#Team/Eng"}, "people/"),
])
def test_a_filter_keeps_the_limit_full_when_the_best_hits_are_outside_it(db_path, small_bounds, args, want):
    _brain(db_path)
    got = _slugs(_run(db_path, "search", {"query": "alpha", "limit": 3, **args}))
    assert len(got) == 3 and all(s.lower().startswith(want) for s in got), got
    for mode in ("keyword", "hybrid"):
        r = _run(db_path, "query", {"question": "alpha", "limit": 3, "mode": mode, **args})
        assert len(r["hits"]) == 3 and all(s.lower().startswith(want) for s in _slugs(r)), (mode, r)


def test_the_filtered_ranking_is_the_unbounded_one(db_path, monkeypatch):
    """With the bounds small, the filtered hits are those of the ranking over every match with
    the same filter (the windows hold the filter's pages, not the first pages of the brain)."""
    _brain(db_path)
    full = {a: _slugs(_run(db_path, "search", {"query": "alpha beta gamma", "limit": 4, "prefix": a})) for a in ("people", "notes")}
    for name, v in (("RANK_BOUND", 5), ("RANK_WINDOW", 4), ("PG_RANK_BOUND", 5), ("PG_CANDIDATES", 4)):
        monkeypatch.setattr(keyword, name, v)
    for a in ("people", "notes"):
        assert _slugs(_run(db_path, "search", {"query": "alpha beta gamma", "limit": 4, "prefix": a})) == full[a], a
    assert all(s.lower().startswith("people/") for s in full["people"]) and len(full["people"]) == 4


def test_the_folder_is_whole_names_case_insensitive_with_subfolders(db_path):
    _brain(db_path)
    got = set(_slugs(_run(db_path, "search", {"query": "alpha", "limit": 50, "prefix": "people"})))
    assert got == {f"people/p{i}" for i in range(6)} | {"People/Sub/deep"}  # not peoplex/q
    assert _slugs(_run(db_path, "search", {"query": "alpha", "limit": 50, "prefix": "people/sub/"})) == ["People/Sub/deep"]
    assert _slugs(_run(db_path, "search", {"query": "alpha", "limit": 50, "prefix": "peoplex", "tag": "teams"})) == ["peoplex/q"]
    # the filters combine: a tag and a folder no page has together is an empty answer
    assert _run(db_path, "search", {"query": "alpha", "limit": 50, "prefix": "notes", "tag": "team"}) == []


def test_the_exact_name_and_substring_paths_filter_too(db_path):
    _brain(db_path)
    with Brain.open(db_path) as b:
        b.put("notes/river", "# River\n\nnot a person\n")
        b.put("people/river", "---\ntags: [team/eng]\n---\n# Someone\n\naliases none; 河流 works here\n")
    # an exact title outside the filter is no hit of it
    assert _slugs(_run(db_path, "search", {"query": "River", "prefix": "people"})) == ["people/river"]
    # CJK text inside a run (substring search)
    assert _slugs(_run(db_path, "search", {"query": "河流", "tag": "team"})) == ["people/river"]
    assert _run(db_path, "search", {"query": "河流", "prefix": "notes"}) == []


def test_a_tag_or_folder_no_page_has_is_said_as_a_type_is(db_path):
    """As ``--type`` (tests/test_type_filter.py): a near miss is NotFound with suggestions, else
    an empty answer and one warning naming the brain's tags / folders with their counts."""
    _brain(db_path)
    with pytest.raises(NotFound) as e:
        _run(db_path, "search", {"query": "alpha", "tag": "team/engg"})
    assert "no page has tag 'team/engg'" in str(e.value) and e.value.suggestions == ["team/eng"]
    said = []
    assert _run(db_path, "search", {"query": "alpha", "tag": "finance"}, said.append) == []
    assert len(said) == 1 and "no page has tag 'finance' yet" in said[0] and "team/eng (6)" in said[0]
    with pytest.raises(NotFound) as e:
        _run(db_path, "query", {"question": "alpha", "prefix": "peple", "mode": "keyword"})
    assert "no page is under the folder 'peple'" in str(e.value) and "people/" in e.value.suggestions
    said = []
    assert _run(db_path, "query", {"question": "alpha", "prefix": "zzz/", "mode": "keyword"}, said.append)["hits"] == []
    assert any("no page is under the folder 'zzz/' yet" in s and "notes/ (12)" in s for s in said), said
    # a filter some page has but no hit matches: empty, nothing said
    said = []
    assert _run(db_path, "search", {"query": "gamma", "prefix": "notes"}, said.append) == [] and said == []


def test_cli_call_pipe_and_mcp_take_the_filters(db_path):
    from test_mcp import connect, items, ok

    _brain(db_path)
    db = str(db_path)
    want = _slugs(_run(db_path, "search", {"query": "alpha", "limit": 3, "tag": "team"}))
    r = gbrain("--db", db, "search", "alpha", "--tag", "team", "--limit", "3", "--json")
    assert r.returncode == 0, r.stderr
    assert _slugs(json.loads(r.stdout)) == want
    r = gbrain("--db", db, "query", "alpha", "--prefix", "people", "--mode", "keyword", "--limit", "3", "--json")
    assert r.returncode == 0 and all(s.lower().startswith("people/") for s in _slugs(json.loads(r.stdout))), r.stderr
    r = gbrain("--db", db, "call", "brain_search", json.dumps({"query": "alpha", "tag": "team", "limit": 3}))
    assert _slugs(json.loads(r.stdout)) == want
    r = gbrain("--db", db, "pipe", input=json.dumps({"id": 1, "tool": "brain_search", "params": {"query": "alpha", "tag": "team", "limit": 3}}) + "\n")
    assert r.returncode == 0, r.stderr
    piped = json.loads(r.stdout.splitlines()[0])
    assert piped["ok"], piped
    assert _slugs(piped["result"]) == want
    r = gbrain("--db", db, "search", "alpha", "--tag", "team/engg")
    assert r.returncode == 1 and "did you mean: team/eng" in r.stderr.decode()

    async def main():
        async with connect(db_path) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            for name in ("brain_search", "brain_query"):
                assert {"tag", "prefix"} <= set(tools[name].input_schema["properties"]), name
            s = await c.call_tool("brain_search", {"query": "alpha", "tag": "team", "limit": 3})
            q = await c.call_tool("brain_query", {"question": "alpha", "prefix": "people", "mode": "keyword", "limit": 3})
            return items(s), ok(q)

    s, q = anyio.run(main)
    assert [h["slug"] for h in s] == want
    assert len(q["items"]) == 3 and all(h["slug"].lower().startswith("people/") for h in q["items"])  # MCP: items alone


def test_the_vector_side_filters_before_its_bound(db_path):
    """``query`` with vectors (a fake model): the vector side ranks the filter's pages only (numpy:
    the allowed ids before the top-k; Postgres: the filter's chunks scanned exactly when HNSW's
    nearest hold too few of them), in vector mode and fused."""
    _brain(db_path)
    with Brain.open(db_path) as b:
        b.set_config("embedding_model", "fake-32")
    _run(db_path, "embed", {})
    for mode in ("vector", "hybrid"):
        for args, want in (({"prefix": "people"}, "people/"), ({"tag": "team"}, "people/p"), ({"type": None, "prefix": "notes"}, "notes/")):
            r = _run(db_path, "query", {"question": "gamma words", "limit": 4, "mode": mode, **args})
            assert r["mode"] == mode and len(r["hits"]) == 4, (mode, args, r)
            assert all(h["slug"].lower().startswith(want) for h in r["hits"]), (mode, args, r)


def test_list_takes_the_folder_filter_as_search_does(db_path):
    """``list --prefix FOLDER`` (brain_list ``prefix``): the folder filter of search and query,
    the same meaning (whole folder names, any case, subfolders included) and the same refusal of
    a folder with no name; it combines with ``tag`` and ``type``."""
    _brain(db_path)
    got = _slugs(_run(db_path, "list", {"prefix": "people", "limit": 0}))
    assert got == sorted({f"people/p{i}" for i in range(6)} | {"People/Sub/deep"}), got  # not peoplex/q
    assert _slugs(_run(db_path, "list", {"prefix": "PEOPLE/sub/", "limit": 0})) == ["People/Sub/deep"]
    assert _slugs(_run(db_path, "list", {"prefix": "peoplex", "tag": "teams"})) == ["peoplex/q"]
    assert _run(db_path, "list", {"prefix": "notes", "tag": "team"}) == []
    from gbrain.errors import BadInput
    for op, args in (("list", {}), ("search", {"query": "alpha"})):
        with pytest.raises(BadInput) as e:
            _run(db_path, op, {**args, "prefix": "/"})
        assert "the folder is empty" in str(e.value)
    r = gbrain("--db", str(db_path), "list", "--prefix", "people/sub", "--json")
    assert r.returncode == 0 and _slugs(json.loads(r.stdout)) == ["People/Sub/deep"], r.stderr
    r = gbrain("--db", str(db_path), "call", "brain_list", json.dumps({"prefix": "notes", "limit": 2}))
    assert r.returncode == 0 and _slugs(json.loads(r.stdout)) == ["notes/n00", "notes/n01"], r.stderr
    assert "prefix" in ops.REGISTRY["list"].input_schema()["properties"]


def test_list_says_a_tag_or_folder_no_page_has_as_search_does(db_path):
    """``list --tag``/``--prefix`` with a tag or folder no page has was an empty list, said
    nothing, while search named the near ones: now the same answer (check_filters)."""
    _brain(db_path)
    for op, args in (("search", {"query": "alpha"}), ("list", {})):
        with pytest.raises(NotFound) as e:
            _run(db_path, op, {**args, "tag": "team/engg"})
        assert "no page has tag 'team/engg'" in str(e.value) and e.value.suggestions == ["team/eng"], op
        with pytest.raises(NotFound) as e:
            _run(db_path, op, {**args, "prefix": "peple"})
        assert "no page is under the folder 'peple'" in str(e.value) and "people/" in e.value.suggestions, op
        said = []
        assert _run(db_path, op, {**args, "tag": "finance"}, said.append) == []
        assert len(said) == 1 and "no page has tag 'finance' yet" in said[0] and "team/eng (6)" in said[0], (op, said)
        said = []
        assert _run(db_path, op, {**args, "prefix": "zzz/"}, said.append) == []
        assert len(said) == 1 and "no page is under the folder 'zzz/' yet" in said[0], (op, said)
    # a tag some page has, but none since then: empty, nothing said
    said = []
    assert _run(db_path, "list", {"tag": "team", "since": "2999-01-01"}, said.append) == [] and said == []
    for cmd in (["search", "alpha"], ["list"]):
        r = gbrain("--db", str(db_path), *cmd, "--tag", "team/engg")
        assert r.returncode == 1 and r.stdout == b"" and "did you mean: team/eng" in r.stderr.decode(), (cmd, r.stderr)
        r = gbrain("--db", str(db_path), *cmd, "--tag", "finance", "--json")
        assert r.returncode == 0 and json.loads(r.stdout) == [] and "no page has tag 'finance' yet" in r.stderr.decode(), (cmd, r.stderr)
