"""gbrain lint and gbrain threads on a small brain built in tmp_path.

The clean brain has no problem at all (every page linked, compiled truth revised after its
timeline, open threads young, one spelling per tag, embeddings fresh). The seeded brain is the
clean one plus exactly one instance of every problem; the lint must report exactly those.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.core import lint as lintmod
from gbrain.core.lint import CHECKS, open_thread_items, tag_key
from gbrain.sync.importer import import_tree
from gbrain.search.embeddings import chunking_version
from conftest import gbrain_in_process


@pytest.fixture
def run():
    """The CLI, run in this process (conftest.gbrain_in_process): these tests are about what the
    commands do, not about the process (~0.25 CPU-s of start-up per call saved; tests/test_cli.py
    runs real processes)."""
    return gbrain_in_process


AS_OF = "2025-03-10"

CLEAN = {
    "people/ana-lima.md": """---
title: Ana Lima
type: person
created: 2024-05-02
updated: 2025-03-05
tags: [founder, yc-alum]
---

# Ana Lima

> CEO of [River AI](../companies/river-ai.md).

## Open Threads

- Intro to Bruno for the Series A (asked 2025-03-04)

---

- **2025-03-04** | meeting — Pitched the Series A, see [the meeting](../meetings/2025-03-04-ana-lima.md).
""",
    "companies/river-ai.md": """---
title: River AI
type: company
created: 2024-05-02
updated: 2025-02-01
tags: [ai]
---

# River AI

> GPU inference. Founded by [Ana Lima](../people/ana-lima.md); raising the [Series A](../deals/river-ai-series-a.md).

---

- **2025-02-01** | crustdata — Headcount 23.
""",
    "deals/river-ai-series-a.md": """---
title: River AI Series A
type: deal
created: 2025-03-04
updated: 2025-03-04
tags: [active]
---

# River AI Series A

> $12M for [River AI](../companies/river-ai.md).

---

- **2025-03-04** | meeting — Pitch.
""",
    "meetings/2025-03-04-ana-lima.md": """---
title: "Meeting: Ana Lima, 2025-03-04"
type: source
date: 2025-03-04
---

Discussed the [River AI Series A](../deals/river-ai-series-a.md) with [[Ana Lima]].
""",
}

SEEDED = dict(CLEAN)
# dead link + a link to the page with broken YAML
SEEDED["people/ana-lima.md"] = CLEAN["people/ana-lima.md"].replace(
    "> CEO of", "> Friend of [Zed Quist](zed-quist.md) and [Broken](broken.md). CEO of"
)
# stale compiled truth: revised 2025-01-01, timeline entry 2025-02-01
SEEDED["companies/river-ai.md"] = CLEAN["companies/river-ai.md"].replace("updated: 2025-02-01", "updated: 2025-01-01")
# an open thread 67 days old on the deal
SEEDED["deals/river-ai-series-a.md"] = CLEAN["deals/river-ai-series-a.md"].replace(
    "\n---\n\n-", "\n## Open Threads\n\n- Term sheet from the lead (asked 2025-01-02)\n\n---\n\n-"
)
# tag near-duplicates (yc-alum on ana, yc_alum here, "YC Alum" on the duplicate-title page)
SEEDED["meetings/2025-03-04-ana-lima.md"] = CLEAN["meetings/2025-03-04-ana-lima.md"].replace(
    "date: 2025-03-04\n", "date: 2025-03-04\ntags: [yc_alum]\n"
).replace("[[Ana Lima]].", "[[Ana Lima]]. Also [River AI, Inc.](../companies/river-ai-inc.md).")
# duplicate title (and a YAML comment that the tag fix must keep)
SEEDED["companies/river-ai-inc.md"] = """---
title: River AI
type: company
# enrichment pending
tags:
  - YC Alum
  - infra
---

# River AI (the legal entity)
"""
# orphan: links out, nobody links in
SEEDED["concepts/lonely.md"] = """---
title: Lonely Concept
type: concept
---

Related to [River AI](../companies/river-ai.md).
"""
# frontmatter that does not load
SEEDED["people/broken.md"] = """---
title: [unclosed
type: person
---

Body.
"""

EXPECTED = {
    ("dead_links", "people/ana-lima"),
    ("orphans", "concepts/lonely"),
    ("stale_compiled_truth", "companies/river-ai"),
    ("open_threads", "deals/river-ai-series-a"),
    ("tag_duplicates", None),
    ("embeddings", "deals/river-ai-series-a"),
    ("embeddings", "companies/river-ai-inc"),
    ("frontmatter_errors", "people/broken"),
    ("duplicate_titles", "companies/river-ai"),
}


def build(tmp_path: Path, pages: dict[str, str], name: str = "tree", embed: bool = True) -> Path:
    """Write ``pages`` to a tree, import it into tmp_path/brain.db, give every page a fresh
    embedding row (when ``embed``); returns the db path."""
    root = tmp_path / name
    for rel, text in pages.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))
    db = tmp_path / "brain.db"
    with Brain.open(db) as b:
        rep = import_tree(b, root)
        assert rep["ok"], rep["problems"]
        if embed:
            b.conn.execute(
                "INSERT INTO page_embeddings(page_id, chunk_index, chunk_text, embedding, model) "
                "SELECT id, 0, title, zeroblob(16), 'text-embedding-3-small' FROM pages"
            )
    return db


def seed_embedding_problems(db: Path) -> None:
    """Deal page: no embeddings; river-ai-inc: embedded long before its last change."""
    c = sqlite3.connect(db)
    with c:
        c.execute("DELETE FROM page_embeddings WHERE page_id = (SELECT id FROM pages WHERE slug = 'deals/river-ai-series-a')")
        c.execute("UPDATE page_embeddings SET created_at = '2000-01-01T00:00:00Z' WHERE page_id = (SELECT id FROM pages WHERE slug = 'companies/river-ai-inc')")
    c.close()


def lint(db: Path, **args) -> dict:
    return ops.run("lint", {"as_of": AS_OF, **args}, ops.Context(db=str(db)))


@pytest.mark.engine_free
def test_clean_brain_reports_nothing(tmp_path, run):
    db = build(tmp_path, CLEAN)
    r = lint(db)
    assert r["items"] == [] and r["ok"] is True
    assert r["counts"] == {c: 0 for c in CHECKS if c not in lintmod.OPT_IN}  # the slow link checks only when named
    assert lint(db, check=",".join(lintmod.OPT_IN))["counts"] == {c: 0 for c in lintmod.OPT_IN}
    p = run("lint", "--as-of", AS_OF, "--db", str(db))
    assert p.returncode == 0, p.stderr
    assert "clean ✓" in p.stdout.decode()


@pytest.mark.engine_free
def test_each_seeded_problem_is_found(tmp_path):
    db = build(tmp_path, SEEDED)
    seed_embedding_problems(db)
    r = lint(db)
    got = {(f["check"], f["slug"]) for f in r["items"]}
    assert got == EXPECTED
    assert r["ok"] is False
    by = {(f["check"], f["slug"]): f for f in r["items"]}
    dead = by[("dead_links", "people/ana-lima")]
    assert (dead["target"], dead["missing_slug"], dead["kind"]) == ("zed-quist", "people/zed-quist", "markdown")
    stale = by[("stale_compiled_truth", "companies/river-ai")]
    assert (stale["revised"], stale["revised_from"], stale["newest_entry"], stale["newer_entries"]) == ("2025-01-01", "updated", "2025-02-01", 1)
    thread = by[("open_threads", "deals/river-ai-series-a")]
    assert (thread["date"], thread["age_days"], thread["done"]) == ("2025-01-02", 67, False)
    tags = by[("tag_duplicates", None)]
    assert tags["canonical"] == "yc-alum"
    assert set(tags["variants"]) == {"yc-alum", "yc_alum", "YC Alum"}
    assert tags["pages"] == ["companies/river-ai-inc", "meetings/2025-03-04-ana-lima"]
    assert by[("embeddings", "deals/river-ai-series-a")]["reason"] == "missing"
    assert by[("embeddings", "companies/river-ai-inc")]["reason"] == "stale"
    assert "does not load" in by[("frontmatter_errors", "people/broken")]["error"]
    assert by[("duplicate_titles", "companies/river-ai")]["pages"] == ["companies/river-ai", "companies/river-ai-inc"]
    for f in r["items"]:
        assert f["message"] and f["action"]


@pytest.mark.engine_free
def test_cli_json_exit_code_and_check_filter(tmp_path, run):
    db = build(tmp_path, SEEDED)
    seed_embedding_problems(db)
    p = run("lint", "--json", "--as-of", AS_OF, "--db", str(db))
    assert p.returncode == 1  # findings: exit 1, the report still on stdout
    r = json.loads(p.stdout)
    assert {f["check"] for f in r["items"]} == {c for c, _ in EXPECTED}
    p = run("lint", "--json", "--check", "orphans,dead-links", "--db", str(db))
    r = json.loads(p.stdout)
    assert r["checks"] == ["orphans", "dead_links"]
    assert {(f["check"], f["slug"]) for f in r["items"]} == {("orphans", "concepts/lonely"), ("dead_links", "people/ana-lima")}
    p = run("lint", "--check", "nonsense", "--db", str(db))
    assert p.returncode == 2 and b"unknown check 'nonsense'" in p.stderr
    p = run("lint", "--as-of", "March", "--db", str(db))
    assert p.returncode == 2 and b"as_of must be a date" in p.stderr
    with pytest.raises(ops.BadInput, match="limit must be 0"):
        lint(db, limit=-1)
    with pytest.raises(ops.BadInput, match="limit must be 0"):
        ops.run("threads", {"limit": -2}, ops.Context(db=str(db)))


@pytest.mark.engine_free
def test_no_embeddings_at_all_is_reported_once(tmp_path):
    db = build(tmp_path, CLEAN, embed=False)
    r = lint(db)
    assert [(f["check"], f["slug"], f["reason"]) for f in r["items"]] == [("embeddings", None, "none")]


@pytest.mark.engine_free
def test_embeddings_from_another_model_are_stale(tmp_path):
    db = build(tmp_path, CLEAN)
    c = sqlite3.connect(db)
    with c:
        c.execute("UPDATE page_embeddings SET model = 'nomic-embed' WHERE page_id = (SELECT id FROM pages WHERE slug = 'people/ana-lima')")
    c.close()
    r = lint(db, check="embeddings")
    assert [(f["slug"], f["stale_because"]) for f in r["items"]] == [("people/ana-lima", "model")]


@pytest.mark.engine_free
def test_limit_truncates_but_counts_stay_complete(tmp_path):
    pages = dict(CLEAN)
    for i in range(5):
        pages[f"concepts/orphan-{i}.md"] = f"---\ntitle: Orphan {i}\n---\n\nAlone.\n"
    db = build(tmp_path, pages)
    r = lint(db, check="orphans", limit=2)
    assert r["counts"]["orphans"] == 5 and r["truncated"] == {"orphans": 3} and len(r["items"]) == 2
    assert lint(db, check="orphans", limit=0)["counts"]["orphans"] == len(lint(db, check="orphans", limit=0)["items"]) == 5


@pytest.mark.engine_free
def test_fix_safe_renames_tag_variants_and_loses_nothing(tmp_path, run):
    db = build(tmp_path, SEEDED)
    before = lint(db)
    r = lint(db, fix_safe=True)
    assert sorted((f["slug"], tuple(f["from"]), tuple(f["to"])) for f in r["fixed"]) == [
        ("companies/river-ai-inc", ("YC Alum", "infra"), ("yc-alum", "infra")),
        ("meetings/2025-03-04-ana-lima", ("yc_alum",), ("yc-alum",)),
    ]
    assert r["counts"]["tag_duplicates"] == 0
    # everything else is found as before
    fixed = {f["slug"] for f in r["fixed"]}
    got = {(f["check"], f["slug"]) for f in r["items"]} - {("embeddings", s) for s in fixed}  # an edited page may outdate its embeddings
    assert got == {(f["check"], f["slug"]) for f in before["items"]} - {("tag_duplicates", None)}
    with Brain.open(db) as b:
        inc = b.get_text("companies/river-ai-inc")
        mtg = b.get_text("meetings/2025-03-04-ana-lima")
        assert b.tags("companies/river-ai-inc") == ["yc-alum", "infra"]
        assert [t["tag"] for t in b.all_tags() if "alum" in t["tag"].lower()] == ["yc-alum"]
    # only the tag spelling changed: comment, keys, block style and body are kept
    assert inc == SEEDED["companies/river-ai-inc.md"].replace("  - YC Alum", "  - yc-alum")
    assert mtg == SEEDED["meetings/2025-03-04-ana-lima.md"].replace("[yc_alum]", "[yc-alum]")
    # a second run has nothing left to fix; the fixed brain exports and re-imports cleanly
    assert lint(db, fix_safe=True)["fixed"] == []
    out = tmp_path / "export"
    p = run("export", "--dir", str(out), "--db", str(db))
    assert p.returncode == 0, p.stderr
    assert (out / "companies/river-ai-inc.md").read_text() == inc


@pytest.mark.engine_free
def test_fix_safe_skips_pages_whose_yaml_does_not_load(tmp_path):
    pages = dict(CLEAN)
    pages["people/odd.md"] = "---\ntitle: Odd\ntags: [Yc Alum]\nbad: [unclosed\n---\n\nsee [Ana](ana-lima.md)\n"
    db = build(tmp_path, pages)
    r = lint(db, fix_safe=True, check="tag_duplicates")
    # the odd page's tags never loaded, so there is no duplicate and nothing to touch
    assert r["fixed"] == [] and r["counts"]["tag_duplicates"] == 0
    with Brain.open(db) as b:
        assert b.get_text("people/odd") == pages["people/odd.md"]


@pytest.mark.engine_free
def test_fix_safe_renames_to_the_spelling_most_pages_use(tmp_path):
    """obsidian-hub: 60 pages tag `MOC`, one `moc`. The fix rewrites the one page, not the 60,
    and its canonical spelling is the one `gbrain tags` shows."""
    pages = dict(CLEAN)
    for i in range(3):
        pages[f"maps/m{i}.md"] = f"---\ntags: [MOC]\n---\n# Map {i}\n"
    pages["maps/odd.md"] = "---\ntags: [moc]\n---\n# Odd\n"
    db = build(tmp_path, pages)
    r = lint(db, fix_safe=True, check="tag_duplicates")
    assert [(f["slug"], f["from"], f["to"]) for f in r["fixed"]] == [("maps/odd", ["moc"], ["MOC"])]
    with Brain.open(db) as b:
        assert [t["tag"] for t in b.all_tags() if t["tag"].lower() == "moc"] == ["MOC"]
        assert b.get_text("maps/m0") == pages["maps/m0.md"]


@pytest.mark.engine_free
def test_threads_lists_items_oldest_first(tmp_path, run):
    pages = dict(SEEDED)
    pages["people/ana-lima.md"] = CLEAN["people/ana-lima.md"].replace(
        "- Intro to Bruno", "- [x] Send the deck (2025-02-01)\n- Undated idea\n- Intro to Bruno"
    )
    db = build(tmp_path, pages)
    r = ops.run("threads", {"as_of": AS_OF}, ops.Context(db=str(db)))
    assert [(t["slug"], t["date"], t["age_days"], t["done"]) for t in r] == [
        ("deals/river-ai-series-a", "2025-01-02", 67, False),
        ("people/ana-lima", "2025-02-01", 37, True),
        ("people/ana-lima", "2025-03-04", 6, False),
        ("people/ana-lima", None, None, False),
    ]
    old = ops.run("threads", {"as_of": AS_OF, "older_than": 30}, ops.Context(db=str(db)))
    assert [t["text"] for t in old] == ["Term sheet from the lead (asked 2025-01-02)", "Send the deck (2025-02-01)"]
    assert [t["slug"] for t in ops.run("threads", {"as_of": AS_OF, "type": "deal"}, ops.Context(db=str(db)))] == ["deals/river-ai-series-a"]
    p = run("threads", "--as-of", AS_OF, "--older-than", "30", "--db", str(db))
    assert p.returncode == 0 and p.stdout.decode().splitlines()[0] == "deals/river-ai-series-a:15  2025-01-02 (67d)  Term sheet from the lead (asked 2025-01-02)"
    # the lint reports the ticked item too
    lr = lint(db, check="open_threads")
    assert [(f["slug"], f["done"]) for f in lr["items"]] == [("deals/river-ai-series-a", False), ("people/ana-lima", True)]


@pytest.mark.engine_free
def test_threads_dated_leaves_out_the_undated_items(tmp_path, run):
    """brain_threads {} on a generated brain answered 22 KB, most of it undated items the
    briefing skips (agent trial 3, finding 5): `dated` keeps the items with a date (and the
    ticked ones, as older_than does), oldest first."""
    pages = dict(SEEDED)
    pages["people/ana-lima.md"] = CLEAN["people/ana-lima.md"].replace(
        "- Intro to Bruno", "- [x] Send the deck (2025-02-01)\n- [x] Undated done\n- Undated idea\n- Intro to Bruno"
    )
    db = build(tmp_path, pages)
    every = ops.run("threads", {"as_of": AS_OF}, ops.Context(db=str(db)))
    dated = ops.run("threads", {"as_of": AS_OF, "dated": True}, ops.Context(db=str(db)))
    assert [t["text"] for t in dated] == [t["text"] for t in every if t["date"] or t["done"]]
    assert [(t["date"], t["done"]) for t in dated] == [("2025-01-02", False), ("2025-02-01", True), ("2025-03-04", False), (None, True)]
    assert any(t["date"] is None and not t["done"] for t in every)
    assert "dated" in ops.REGISTRY["threads"].input_schema()["properties"]
    p = run("threads", "--as-of", AS_OF, "--dated", "--json", "--db", str(db))
    assert p.returncode == 0 and json.loads(p.stdout) == dated


@pytest.mark.engine_free
def test_threads_dated_keeps_an_item_whose_date_is_still_ahead(tmp_path):
    """A meeting's action item with a due date (`- [ ] Aoife: send the numbers (2025-03-09)`, after
    as_of) has a date written in it, as `dated` says, but was dropped as undated (trial 48: the
    time-sensitive items were the ones lost). It is kept; it has no age yet (`date` None: the
    newest date not after as_of), so it comes after the aged ones, before the undated."""
    pages = dict(SEEDED)
    pages["people/ana-lima.md"] = CLEAN["people/ana-lima.md"].replace(
        "- Intro to Bruno", "- [ ] Aoife: send the numbers (2099-03-09)\n- Undated idea\n- Intro to Bruno")
    db = build(tmp_path, pages)
    every = ops.run("threads", {"as_of": AS_OF}, ops.Context(db=str(db)))
    dated = ops.run("threads", {"as_of": AS_OF, "dated": True}, ops.Context(db=str(db)))
    due = [t for t in dated if "2099-03-09" in t["text"]]
    assert len(due) == 1 and due[0]["date"] is None and due[0]["age_days"] is None
    assert not any(t["text"] == "Undated idea" for t in dated) and any(t["text"] == "Undated idea" for t in every)
    assert dated[-1]["text"].endswith("(2099-03-09)")


@pytest.mark.engine_free
def test_open_thread_items_parsing():
    ct = """# X

## Open threads

- First (2025-01-01, again 2025-02-30 which is no date, then 2025-02-03)
  continued here
* [ ] Second
1. Third

Not an item.

```
## Open Threads
- in a fence
```

### Sub heading
- still inside: deeper heading

## Next section
- not a thread
"""
    items = open_thread_items(ct)
    assert [(i["text"], i["done"], i["dates"]) for i in items] == [
        ("First (2025-01-01, again 2025-02-30 which is no date, then 2025-02-03) continued here", False, ["2025-01-01", "2025-02-03"]),
        ("Second", False, []),
        ("Third", False, []),
        ("still inside: deeper heading", False, []),
    ]


@pytest.mark.engine_free
@pytest.mark.parametrize("tag,key", [("YC Alum", "yc-alum"), ("yc_alum", "yc-alum"), ("#yc-alum", "yc-alum"), ("yc  __ alum", "yc-alum"), ("AI/ML", "ai/ml"), ("Ünïcode Tag", "ünïcode-tag")])
def test_tag_key(tag, key):
    assert tag_key(tag) == key


@pytest.mark.engine_free
def test_fix_safe_text_edit_shapes_and_dedupe_fallback(tmp_path):
    pages = dict(CLEAN)
    pages["people/comma.md"] = "---\ntitle: Comma\ntags: founder, YC_Alum  # from crm\n---\n\nx\n"
    pages["people/both.md"] = "---\ntitle: Both\ntags: [yc-alum, yc_alum, ai]\n---\n\ny\n"
    db = build(tmp_path, pages)
    r = lint(db, fix_safe=True, check="tag_duplicates")
    assert {f["slug"]: f["to"] for f in r["fixed"]} == {"people/comma": ["founder", "yc-alum"], "people/both": ["yc-alum", "ai"]}
    with Brain.open(db) as b:
        # text edit: the comma string and its trailing comment kept
        assert b.get_text("people/comma") == "---\ntitle: Comma\ntags: founder, yc-alum  # from crm\n---\n\nx\n"
        # a rename that collapses two tags goes through the YAML round-trip edit, flow style kept
        assert b.get_text("people/both") == "---\ntitle: Both\ntags: [yc-alum, ai]\n---\n\ny\n"
    assert lint(db, check="tag_duplicates")["ok"] is True


@pytest.mark.engine_free
def test_fix_safe_keeps_blank_separated_tags_blank_separated(tmp_path):
    """`tags: journal daily` (two tags, as Obsidian reads it) was written back by `lint --fix-safe`
    as `tags: journal, daily`: the user's style lost. The text edit renames the words in place (the
    comment kept), and a rename that drops a duplicate (the YAML edit) keeps the blanks too."""
    pages = dict(CLEAN)
    pages["people/blank.md"] = "---\ntitle: Blank\ntags: founder  YC_Alum # from crm\n---\n\nx\n"
    pages["people/twice.md"] = "---\ntitle: Twice\ntags: yc_alum yc-alum ai\n---\n\ny\n"
    db = build(tmp_path, pages)
    r = lint(db, fix_safe=True, check="tag_duplicates")
    assert {f["slug"]: f["to"] for f in r["fixed"]} == {"people/blank": ["founder", "yc-alum"], "people/twice": ["yc-alum", "ai"]}
    with Brain.open(db) as b:
        assert b.get_text("people/blank") == "---\ntitle: Blank\ntags: founder  yc-alum # from crm\n---\n\nx\n"
        assert b.get_text("people/twice") == "---\ntitle: Twice\ntags: yc-alum ai\n---\n\ny\n"
    assert lint(db, check="tag_duplicates")["ok"] is True


EMBED_STATE = """CREATE TABLE IF NOT EXISTS embed_state (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  chunks INTEGER NOT NULL DEFAULT 0,
  embedded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  PRIMARY KEY (page_id, model)
)"""


@pytest.mark.engine_free
def test_embeddings_judged_by_content_hash_when_embed_state_exists(tmp_path):
    """With the embed_state table (written by `gbrain embed`: content hash per page and model), staleness
    is a hash comparison, the same rule `gbrain embed --stale` uses; timestamps are ignored."""
    db = build(tmp_path, CLEAN, embed=False)
    c = sqlite3.connect(db)
    with c:
        c.execute(EMBED_STATE)
        c.execute("INSERT INTO embed_state(page_id, model, content_hash, embedded_at, chunking) SELECT id, 'wordllama', content_hash, '2000-01-01T00:00:00Z', ? FROM pages",
                  (chunking_version("wordllama"),))
    c.close()
    assert lint(db, check="embeddings")["items"] == []  # old timestamps, same content: fresh
    c = sqlite3.connect(db)
    with c:
        c.execute("UPDATE embed_state SET content_hash = 'old' WHERE page_id = (SELECT id FROM pages WHERE slug = 'people/ana-lima')")
        c.execute("DELETE FROM embed_state WHERE page_id = (SELECT id FROM pages WHERE slug = 'companies/river-ai')")
    c.close()
    r = lint(db, check="embeddings")
    assert [(f["slug"], f["reason"], f["model"]) for f in r["items"]] == [("companies/river-ai", "missing", "wordllama"), ("people/ana-lima", "stale", "wordllama")]


@pytest.mark.engine_free
def test_embeddings_are_judged_for_the_model_query_uses(tmp_path, minilm):
    """lint, query and embed agree on the active model: a configured model with no vectors is
    one brain-wide finding, and with both offline models embedded the one query uses
    (minilm) is judged, not the other."""
    db = build(tmp_path, CLEAN, embed=False)
    c = sqlite3.connect(db)
    with c:
        c.execute(EMBED_STATE)
        for m in ("minilm", "wordllama"):
            c.execute("INSERT INTO embed_state(page_id, model, content_hash, chunking) SELECT id, ?, content_hash, ? FROM pages", (m, chunking_version(m)))
        c.execute("UPDATE embed_state SET content_hash = 'old' WHERE model = 'wordllama'")
        c.execute("UPDATE embed_state SET content_hash = 'old' WHERE model = 'minilm' AND page_id = (SELECT id FROM pages WHERE slug = 'people/ana-lima')")
    c.close()
    r = lint(db, check="embeddings")
    assert [(f["slug"], f["reason"], f["model"]) for f in r["items"]] == [("people/ana-lima", "stale", "minilm")]
    with Brain.open(db) as b:
        b.set_config("embedding_model", "wordllama")
    c = sqlite3.connect(db)
    with c:
        c.execute("DELETE FROM embed_state WHERE model = 'wordllama'")
    c.close()
    f = lint(db, check="embeddings")["items"]
    assert [(x["slug"], x["reason"], x["model"]) for x in f] == [(None, "none", "wordllama")]
    assert "minilm" in f[0]["message"] and f[0]["action"] == "gbrain embed --stale"


@pytest.mark.engine_free
def test_dead_link_missing_slug_forms(tmp_path):
    pages = dict(CLEAN)
    pages["sources/2025-03-04-notes.md"] = (
        "---\ntitle: Notes\n---\n\n[Zed](zed.md), [Nope](companies/nope), [[Agent Memory]], [Far](../../outside.md), "
        "[Ana L](../people/ana-lmia.md).\n\n[back](../people/ana-lima.md)\n"
    )
    db = build(tmp_path, pages)
    r = lint(db, check="dead_links")
    got = {f["target"]: (f["missing_slug"], f["kind"]) for f in r["items"]}
    assert got == {
        "zed": ("sources/zed", "markdown"),
        "companies/nope": ("companies/nope", "markdown"),
        "Agent Memory": ("agent-memory", "wiki"),
        "../../outside": (None, "markdown"),
        "../people/ana-lmia": ("people/ana-lmia", "markdown"),
    }
    typo = next(f for f in r["items"] if f["target"] == "../people/ana-lmia")
    assert typo["suggestions"] == ["people/ana-lima"]


def test_a_path_link_found_only_by_a_title_is_a_dead_link_with_the_guess(tmp_path, db_path):
    """Trial of agents writing through the CLI: ``[Ana](ana.md)`` (no file ``ana.md``) resolved
    to the page titled "Ana" with no move behind it and lint said nothing; Obsidian and any
    markdown viewer show it broken. It is a dead path link now, with that page as the guess;
    a dead path link whose name is a page's title gets that page as its first suggestion."""
    pages = dict(CLEAN)
    pages["people/ana-lima.md"] = pages["people/ana-lima.md"].replace("title: Ana Lima", "title: Ana\naliases: [Lima]")
    pages["notes/met.md"] = ("---\ntitle: Met\n---\nMet [Ana](ana.md), [her](Lima.md), [the CEO](../people/ana.md), [Ana L.](../people/ana-lima.md) "
                             "and [River](../companies/river-ai.md), of [Wiki](ana-lima.md) fame, [[Ana]].\n")
    root = tmp_path / "tree"
    for rel, text in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    with Brain.open(db_path, create=True) as b:  # gbrain resolves the first two by the title and the alias
        assert import_tree(b, root)["ok"]
        assert {x["target"]: x["to_slug"] for x in b.links("notes/met")}["ana"] == "people/ana-lima"
    r = lint(db_path, check="dead_links")
    got = {f["target"]: f for f in r["items"]}
    assert set(got) == {"ana", "Lima", "../people/ana"}, got
    for t in ("ana", "Lima"):
        f = got[t]
        assert f["suggestions"] == ["people/ana-lima"] and f["guessed"] == "people/ana-lima" and f["kind"] == "markdown"
        assert f["missing_slug"] == "notes/" + t and "a path no file has" in f["message"] and "people/ana-lima" in f["action"]
    assert got["../people/ana"]["suggestions"][0] == "people/ana-lima" and "did you mean people/ana-lima" in got["../people/ana"]["message"]
    assert r["counts"]["dead_links"] == 3 and r["ok"] is False


from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gbrain.core.lint import rename_tags_text  # noqa: E402
from gbrain.page.markdown import parse_page  # noqa: E402

_WORDS = st.sampled_from(["ai", "YC Alum", "yc_alum", "yc-alum", "Founder", "founder", "infra", "w25", "Deep Tech"])


@pytest.mark.engine_free
@settings(max_examples=80, deadline=None)
@given(tags=st.lists(_WORDS, min_size=1, max_size=5, unique=True), shape=st.sampled_from(["flow", "block", "comma", "quoted"]), extra=st.booleans())
def test_rename_tags_text_changes_only_tag_tokens(tags, shape, extra):
    """The text edit renames exactly the tag tokens: parsed tags are the mapped list (before the
    dedupe that _fix_tags checks separately) and every line outside the tags value is unchanged."""
    rename = {"YC Alum": "yc-alum", "yc_alum": "yc-alum", "Founder": "founder", "Deep Tech": "deep-tech"}
    # a tags string is split at blanks too (Obsidian's reading: a tag holds none), so a
    # two-word item is a tag of a list only
    assume(shape != "comma" or not any(" " in t for t in tags))
    if shape == "flow":
        tv = "tags: [" + ", ".join(tags) + "]\n"
    elif shape == "block":
        tv = "tags:\n" + "".join(f"  - {t}\n" for t in tags)
    elif shape == "comma":
        tv = "tags: " + ", ".join(tags) + "\n"
    else:
        tv = "tags: [" + ", ".join(f'"{t}"' for t in tags) + "]\n"
    head = "---\ntitle: Founder notes  # YC Alum\n"
    tail = ("note: yc_alum stays here\n" if extra else "") + "---\n\nBody mentions YC Alum and [x](y.md).\n"
    text = head + tv + tail
    page = parse_page(text, "p.md")
    assert page.tags == [t for t in tags if " " not in t]  # (an item with a blank is no tag: tests/test_blank_tags.py)
    new = rename_tags_text(page, rename)
    if not any(t in rename for t in tags):
        assert new is None
        return
    assert new is not None
    after = parse_page(new, "p.md")
    raw = after.frontmatter["tags"]
    items = raw if isinstance(raw, list) else [x.strip() for x in raw.split(",")]
    assert items == [rename.get(t, t) for t in tags]
    assert new.startswith(head) and new.endswith(tail)
    assert after.frontmatter.get("note") == page.frontmatter.get("note")


def test_a_link_to_a_renamed_page_names_where_it_went(tmp_path, db_path):
    """A file renamed in the folder (outside Obsidian, so no link was rewritten) keeps its page,
    but links written with the old name dangle in the markdown: lint's dead_links says which
    page it became (from the history's move), first among the suggestions, for a path link and
    for a wiki link by the old file name; an unrelated dead link still reads as before."""
    from gbrain.sync.engine import SyncEngine

    root = tmp_path / "v"
    (root / "deals").mkdir(parents=True)
    (root / "companies").mkdir()
    (root / "deals" / "big-deal.md").write_text("# Series A\n")  # a title unlike the file name
    (root / "companies" / "co.md").write_text("# Co\n\nSee [the deal](../deals/big-deal.md), [[big-deal]] and [[Nobody Here]].\n")
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        (root / "deals" / "big-deal.md").rename(root / "deals" / "renamed.md")
        assert eng.sync()["counts"]["moved"] == 1
        eng.close()
        r = ops.run("lint", {"check": "dead_links"}, brain=b)
    by_target = {f["target"]: f for f in r["items"]}
    assert set(by_target) == {"../deals/big-deal", "big-deal", "Nobody Here"}
    for t in ("../deals/big-deal", "big-deal"):
        f = by_target[t]
        assert f["suggestions"][0] == "deals/renamed" and "deals/renamed" in f["message"] and "renamed" in f["action"]
    assert "which is no page" in by_target["Nobody Here"]["message"]


@pytest.mark.engine_free
def test_fixes_are_listed_up_to_the_limit_but_all_are_applied(tmp_path):
    """A brain-wide tag fix touched every page spelling a tag the other way, and `fixed` listed
    every one of them: thousands of entries in one agent answer on a big vault. The fixes are all
    applied (a second run finds nothing), ``fixed`` lists at most ``limit`` of them and
    ``truncated`` says how many more, as it does for findings; ``limit`` 0 lists all."""
    pages = dict(CLEAN)
    for i in range(6):
        pages[f"maps/m{i}.md"] = f"---\ntags: [MOC]\n---\n# Map {i}\n"
    for i in range(5):
        pages[f"maps/odd{i}.md"] = f"---\ntags: [moc]\n---\n# Odd {i}\n"
    db = build(tmp_path, pages)
    dry = lint(db, fix_safe=True, dry_run=True, check="tag_duplicates", limit=0)
    assert len(dry["fixed"]) == 5 and "fixed" not in dry["truncated"]
    r = lint(db, fix_safe=True, check="tag_duplicates", limit=2)
    assert len(r["fixed"]) == 2 and r["truncated"]["fixed"] == 3, (r["fixed"], r["truncated"])
    assert "3 more fixes" in lintmod.render_text(r)
    with Brain.open(db) as b:
        assert all(b.tags(f"maps/odd{i}") == ["MOC"] for i in range(5))
    assert lint(db, fix_safe=True, check="tag_duplicates")["fixed"] == []


@pytest.mark.engine_free
def test_the_text_report_counts_one_finding_in_the_singular():
    """trial18: a lint with one finding ended "1 findings"."""
    from gbrain.core.lint import render_text

    base = {"ok": False, "as_of": "2026-04-30", "pages": 3, "checks": ["orphans"], "items": [], "truncated": {},
            "fixed": [], "skipped": [], "notes": {}, "dry_run": False}
    assert render_text({**base, "counts": {"orphans": 1}}).endswith("\n1 finding")
    assert render_text({**base, "counts": {"orphans": 2, "dead_links": 1}}).endswith("\n3 findings")
