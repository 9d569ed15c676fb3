"""An agent stores a source in a page's `.raw` sidecar while the person edits the same sidecar file.

Found in the "agent's day" trial (trial9): under `gbrain watch`, an agent's `brain_raw_put` of a
new source (`exa`) and a person's hand edit of the same `people/.raw/ana-tanaka.json` (a
`founder_note` source added in vim) met in one round. Both appended a member at the end of the
`sources` object, which the line merge of pages cannot tell apart from overlapping edits (and a
sidecar was never merged at all: only pages were), so the round made a `both-changed` conflict:
the file's JSON kept, the agent's source only in `people/.raw/ana-tanaka.json.conflict-…`, a copy
no MCP tool can read or delete. A sidecar is a map of sources, each written whole by `raw_put`;
edits of different sources merge without a guess: the brain's changed sources are written into
the file's text as `raw_put` writes them (`jsonsplice.set_member`), every other byte of the file
kept. The same source changed differently on both sides, a source removed, or text that is not a
JSON object stays the conflict it was.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gbrain.sync.engine import conflict_list
from gbrain.sync.merge import merge_edits
from gbrain.sync.verify import fresh_import_differences

sys.path.insert(0, str(Path(__file__).parent))
from test_sync import all_versions, sha, tree_files, verify_equal  # noqa: E402

RAW = "people/.raw/ana-lima.json"
BASE = b'{\n  "sources": {\n    "crustdata": {"name": "Ana Lima", "title": "CEO", "connections": 812},\n    "happenstance": {"career": ["Payments Co", "River AI"]}\n  }\n}\n'


def with_source(text: bytes, name: str, value) -> bytes:
    """``text`` with one more source appended as `raw_put` and a person in an editor both write it."""
    body = text.decode("utf-8")
    at = body.rindex("\n  }\n}")
    return (body[:at] + ",\n    " + json.dumps(name) + ": " + json.dumps(value) + body[at:]).encode("utf-8")


@pytest.mark.engine_free
def test_two_sources_added_at_once_merge_keeping_the_files_bytes():
    brain = with_source(BASE, "exa", {"url": "https://example.com/ana"})
    disk = with_source(BASE, "founder_note", {"met": "2026-11-20"})
    merged = merge_edits(BASE, brain, disk, RAW)
    assert merged is not None
    assert merged.startswith(disk[: disk.rindex(b"\n  }\n}")])  # the file's text is kept, byte for byte
    assert json.loads(merged)["sources"] == {**json.loads(disk)["sources"], "exa": {"url": "https://example.com/ana"}}


@pytest.mark.engine_free
def test_a_source_changed_on_one_side_and_another_added_on_the_other_merge():
    brain_obj = json.loads(BASE)
    brain_obj["sources"]["crustdata"]["title"] = "CEO & co-founder"
    brain = json.dumps(brain_obj, indent=2).encode() + b"\n"  # re-dumped: other spellings of the same sources
    disk = with_source(BASE, "founder_note", {"met": "2026-11-20"}).replace(b"\n", b"\r\n")
    merged = merge_edits(BASE.replace(b"\n", b"\r\n"), brain, disk, RAW)
    assert merged is not None and b"\r\n" in merged and b"\n" not in merged.replace(b"\r\n", b"")
    got = json.loads(merged)["sources"]
    assert got["crustdata"]["title"] == "CEO & co-founder" and got["founder_note"] == {"met": "2026-11-20"}
    assert got["happenstance"] == json.loads(BASE)["sources"]["happenstance"]


@pytest.mark.engine_free
def test_the_same_source_changed_differently_a_removal_or_bad_json_stay_conflicts():
    a = with_source(BASE, "exa", {"v": 1})
    b = with_source(BASE, "exa", {"v": 2})
    assert merge_edits(BASE, a, b, RAW) is None  # one source, two values: no guess
    assert merge_edits(BASE, a, a, RAW) is not None  # the same edit on both sides
    removed = json.dumps({"sources": {"crustdata": json.loads(BASE)["sources"]["crustdata"]}}).encode()
    assert merge_edits(BASE, removed, with_source(BASE, "x", 1), RAW) is None  # a source removed by the brain
    assert merge_edits(BASE, a, b'{"sources": {', RAW) is None  # the file is no JSON (a save half typed)
    assert merge_edits(BASE, a, b"[1, 2]\n", RAW) is None  # nor an object


# ---- the engine (SQLite, and Postgres with --engine postgres) ----------------------------------


@pytest.fixture
def env(synced):
    """The fixture brain bound to its tree by a first sync (conftest.synced)."""
    return synced


def test_an_agents_raw_put_and_a_hand_edit_of_the_sidecar_merge_in_sync(env):
    brain, eng, root = env
    f = root / RAW
    base = f.read_bytes()
    disk = with_source(base, "founder_note", {"met": "2026-11-20", "note": "wants an intro"})
    f.write_bytes(disk)
    brain.raw_put("people/ana-lima", "exa", {"url": "https://example.com/ana"})
    brain_v = brain.conn.execute("SELECT content_hash FROM files WHERE path = ?", (RAW,)).fetchone()[0]
    rep = eng.sync()
    assert rep["exit_code"] == 0 and rep["conflicts"] == [] and rep["merged"] == [RAW], rep
    assert not [p for p in tree_files(root) if ".conflict-" in p] and conflict_list(brain, all=True) == []
    sources = json.loads(f.read_bytes())["sources"]
    assert set(sources) == {"crustdata", "happenstance", "founder_note", "exa"}
    assert brain.raw_get("people/ana-lima")["exa"] == {"url": "https://example.com/ana"}
    assert brain.raw_get("people/ana-lima")["founder_note"]["note"] == "wants an intro"
    assert {sha(base), sha(disk), brain_v, sha(f.read_bytes())} <= all_versions(brain, root)  # every version kept
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}
    again = eng.sync()
    assert again["exit_code"] == 0 and again["counts"]["imported"] == again["counts"]["exported"] == 0


def test_the_same_source_written_on_both_sides_stays_a_conflict(env):
    brain, eng, root = env
    f = root / RAW
    disk = f.read_bytes().replace(b'"title": "CEO"', b'"title": "CEO (by hand)"')
    f.write_bytes(disk)
    brain.raw_put("people/ana-lima", "crustdata", {"name": "Ana Lima", "title": "CEO (provider)", "connections": 812})
    rep = eng.sync()
    assert rep["exit_code"] == 3 and rep["merged"] == [] and [c["kind"] for c in rep["conflicts"]] == ["both-changed"]
    assert f.read_bytes() == disk


def test_lint_lists_an_open_conflict_of_a_sidecar_as_brain_conflicts_does(env):
    """The conflict copy of a sidecar (a file, not a page) was open in `brain_conflicts` while
    `brain_lint`'s `conflicts` check, which the maintain and briefing skills read, said 0: lint
    now lists every open conflict copy, a file's too, under the page the sidecar belongs to, with
    what can be done (no command deletes a file that is not a page: the copy goes in the folder)."""
    from gbrain import operations as ops

    brain, eng, root = env
    test_the_same_source_written_on_both_sides_stays_a_conflict(env)
    [c] = conflict_list(brain)
    r = ops.run("lint", {"check": "conflicts"}, brain=brain)
    assert r["counts"]["conflicts"] == 1, r
    [f] = r["items"]
    assert f["slug"] == "people/ana-lima" and f["path"] == c["copy_path"] and f["original"] == RAW
    assert "gbrain raw people/ana-lima" in f["action"] and "folder" in f["action"]
    assert ops.run("lint", {"check": "conflicts", "slug": ["people/ana-lima"]}, brain=brain)["counts"]["conflicts"] == 1
    assert ops.run("lint", {"check": "conflicts", "slug": ["people/bruno-okafor"]}, brain=brain)["counts"]["conflicts"] == 0
    (root / c["copy_path"]).unlink()  # resolved in the folder
    eng.sync()
    assert conflict_list(brain) == [] and ops.run("lint", {"check": "conflicts"}, brain=brain)["counts"]["conflicts"] == 0


@pytest.mark.engine_free
def test_a_slug_into_raw_says_what_the_sidecar_is_and_how_to_reach_it():
    """`brain_conflicts` lists the copy of a sidecar and says to delete the copy with
    brain_delete; brain_delete (and brain_get) refused its path with "it points into .raw/,
    which gbrain keeps out of the brain", untrue (the sidecar and its copy are in the brain) and
    no help. The refusal now names the page whose raw data it is and the calls that reach it."""
    from gbrain.operations.registry import tool_text
    from gbrain.page.slugs import slug_problem

    why = slug_problem("people/.raw/ana-lima.json.conflict-20261203T161444")
    assert "keeps out of the brain" not in why and "`gbrain raw people/ana-lima`" in why and "folder" in why, why
    assert '`brain_raw {"slug": "people/ana-lima"}`' in tool_text(why)
    plain = slug_problem("people/.raw/ana-lima.json")
    assert "`gbrain raw people/ana-lima`" in plain and "conflict" not in plain, plain
    assert "keeps out of the brain" not in slug_problem("notes/.raw/x") and ".raw/" in slug_problem("notes/.raw/x")
    assert ".git/" in slug_problem(".git/config")


@pytest.mark.engine_free
def test_brain_conflicts_description_says_where_each_kind_of_copy_is_deleted():
    """trial9: brain_conflicts listed a sidecar's conflict copy open and its description said
    "delete the copy (brain_delete)", which refuses a file's copy (a .raw sidecar, an
    attachment: deleted in the folder, as lint's action says). The description tells both, and
    is no longer than it was (every tools/list carries it: 355 characters)."""
    from gbrain.operations.registry import REGISTRY

    d = REGISTRY["conflicts"].description
    assert "brain_delete" in d and "folder" in d and ".raw" in d, d
    assert "a page of its own" not in d, d  # a file's copy is no page
    assert len(d) <= 355, len(d)
