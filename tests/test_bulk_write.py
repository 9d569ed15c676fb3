"""Import writes new pages in bulk (``Brain.save_new_pages``: one statement per table for many
pages) and resolves links once at the end (``Brain.re_resolve``): the rows must be exactly those
that saving the same pages one by one gives."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURE_BRAIN, make_brain
from gbrain.core import brain as brainmod
from gbrain.core.brain import Brain
from gbrain.sync import importer
from gbrain.sync.importer import import_tree
from gbrain.sync import verify
from gbrain.sync.verify import derived_snapshot, engine_snapshot

EDGE_PAGES = {
    # a title that is another page's file name, aliases, inline + frontmatter tags (one twice)
    "notes/soren.md": "---\ntitle: Ana\naliases: [Sorensen, S]\ntags: [alpha, Alpha]\n---\nSee [[Ana]] and [[Sorensen]] #beta #alpha\n",
    "people/ana.md": "# Ana\n\n[back](../notes/soren.md) [[soren]] [[soren]] ![[soren]] [x](/notes/soren.md)\n\n---\n\n## Timeline\n\n- **2025-01-02** | src — one\n- **2025-01-02** | src — one\n",
    "Soren.md": "\ufeffplain [[people/ana]] [[nowhere]]\n",
    "bad/yaml.md": "---\ntitle: [unclosed\n---\nbody [[Ana]]\n",
    "deep/a/b/c.md": "---\nalias: Cee\n---\n[up](../../../people/ana.md) [[Cee]] [[c]]\n",
}


def _tree(tmp_path: Path) -> Path:
    src = make_brain(tmp_path / "src", 60)
    for p in FIXTURE_BRAIN.rglob("*.md"):
        rel = p.relative_to(FIXTURE_BRAIN).as_posix()
        if rel not in ("index.md", "schema.md", "log.md"):
            (src / "fx" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(p, src / "fx" / rel)
    for rel, text in EDGE_PAGES.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    for p in list(src.rglob("*")):  # pages only: this compares how pages are written
        if p.is_file() and (p.suffix != ".md" or "/.raw/" in p.as_posix() or p.relative_to(src).as_posix() in ("index.md", "schema.md", "log.md")):
            p.unlink()
    return src


def _rows(b: Brain) -> dict[str, list]:
    """Every row a page save writes, ids replaced by slugs and per-page rows in id order."""
    c = b.conn
    cols = [r[1] for r in c.execute("PRAGMA table_info(pages)")] if getattr(c, "dialect", "sqlite") != "postgres" else None

    def q(sql):
        return [tuple(r) for r in c.execute(sql)]

    out = derived_snapshot(b) | engine_snapshot(b)  # (Postgres: its trigger-kept vectors and totals too)
    out.pop("embeddings")
    keep = [k for k in (cols or []) if k not in ("id", "created_at", "updated_at")]
    if keep:
        out["pages_all"] = sorted(q(f"SELECT {', '.join(keep)} FROM pages"), key=repr)
    out["tags_order"] = q("SELECT p.slug, t.tag, t.inline FROM tags t JOIN pages p ON p.id = t.page_id ORDER BY p.slug, t.id")
    out["aliases_order"] = q("SELECT p.slug, a.alias FROM aliases a JOIN pages p ON p.id = a.page_id ORDER BY p.slug, a.id")
    out["links_order"] = q("SELECT f.slug, l.kind, l.target, t.slug, l.context, l.count, l.forms FROM links l JOIN pages f ON f.id = l.from_page_id LEFT JOIN pages t ON t.id = l.to_page_id ORDER BY f.slug, l.id")
    out["timeline_order"] = q("SELECT p.slug, e.date, e.summary FROM timeline_entries e JOIN pages p ON p.id = e.page_id ORDER BY p.slug, e.id")
    out["history"] = sorted(q("SELECT h.kind, h.name, h.version, h.path, h.op, h.size, b.hash, b.size FROM history h LEFT JOIN history_bodies b ON b.id = h.body_id"), key=repr)
    return out


def test_bulk_import_equals_saving_page_by_page(tmp_path, db_path, monkeypatch):
    src = _tree(tmp_path)
    monkeypatch.setattr(importer, "BATCH", 7)  # many batches, some windows, each cut mid-batch
    monkeypatch.setattr(importer, "WINDOW", 30)
    calls = []
    real = Brain.save_new_pages
    monkeypatch.setattr(Brain, "save_new_pages", lambda self, items, **kw: calls.append(len(items)) or real(self, items, **kw))
    with Brain.open(db_path) as a:
        rep = import_tree(a, src)
        assert rep["ok"], rep["problems"]
        bulk = _rows(a)
        # page by page, each resolving its links as it goes, in a new brain of the same engine
        with verify.FRESH_STORE(a, tmp_path) as where, Brain.open(where) as b:
            for p in sorted(src.rglob("*.md"), key=lambda p: p.relative_to(src).as_posix()):
                b.save_page(p.relative_to(src).as_posix(), p.read_bytes().decode("utf-8"))
            one = _rows(b)
    assert sum(calls) == rep["counts"]["pages_written"] == len(bulk["pages"]) and max(calls) == 7  # the bulk path wrote them all
    if "pages_all" not in bulk:
        one.pop("pages_all", None)
    for k in one:
        assert bulk[k] == one[k], k


@pytest.mark.engine_free
def test_reimport_mixing_new_changed_and_retyped_paths_equals_a_fresh_import(tmp_path, monkeypatch):
    """New pages go in bulk, changed ones page by page, in file order within one batch."""
    from gbrain.sync.verify import fresh_import_differences

    src = _tree(tmp_path)
    (src / "odd.md").write_bytes(b"not \xff utf-8\n")  # a file now, a page later
    monkeypatch.setattr(importer, "BATCH", 5)
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, src)
        (src / "people" / "ana.md").write_text("# Ana\n\nnow links [[Cee]]\n")  # changed
        (src / "zz-new.md").write_text("---\ntitle: Soren\n---\nnew page titled like others [[Ana]]\n")  # new
        (src / "odd.md").write_text("# Odd\n\nnow a page [[Soren]]\n")  # a file became a page
        (src / "Soren.md").write_bytes(b"\xff binary now\n")  # a page became a file
        rep = import_tree(b, src)
        assert rep["ok"], rep["problems"]
        assert rep["counts"]["pages_written"] == 3 and rep["counts"]["files_written"] == 1
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_save_new_pages_refuses_a_slug_the_brain_holds(tmp_path):
    with Brain.open(tmp_path / "b.db") as b:
        b.save_page("a.md", "one\n")
        with b.transaction(), pytest.raises(Exception):
            b.save_new_pages([("a.md", "two\n", b.parsed(b.page_row("a")))])
        assert b.get_text("a") == "one\n"


@pytest.mark.parametrize("scan", [0, brainmod.SCAN_NAMES, 10**9])
def test_re_resolve_by_many_names_or_few_gives_the_same_links(tmp_path, db_path, monkeypatch, scan):
    """re_resolve reads every link once when it has many names, or looks the names up in
    bounded statements: both give what a fresh resolution gives, with more names than one
    statement may bind on Postgres (65,535)."""
    src = _tree(tmp_path)
    monkeypatch.setattr(brainmod, "SCAN_NAMES", scan)
    with Brain.open(db_path) as b:
        import_tree(b, src)
        want = _rows(b)["links"]
        with b.transaction():
            b.conn.execute("UPDATE links SET to_page_id = NULL")
            names = {r[0] for r in b.conn.execute("SELECT DISTINCT target_name FROM links")}
            assert b.re_resolve(names | {f"no-such-name-{i}" for i in range(70_000)}) > 0
        assert _rows(b)["links"] == want
        with b.transaction():  # dangling links too, in the same pass
            b.conn.execute("UPDATE links SET to_page_id = NULL")
            assert b.re_resolve({"no-such-name"}, dangling=True) > 0
        assert _rows(b)["links"] == want


@pytest.mark.parametrize("many", [1, 7, 100])
def test_links_updated_in_multi_row_statements_equal_one_update_each(tmp_path, db_path, monkeypatch, many):
    """derive.update_links writes re-resolved links many per statement (UPDATE … FROM VALUES on
    SQLite): the links end as with one UPDATE per link, dangling ones (None) included."""
    from gbrain.storage import derive

    src = _tree(tmp_path)
    monkeypatch.setattr(derive, "MANY_ROWS", many)
    with Brain.open(db_path) as b:
        import_tree(b, src)
        want = _rows(b)["links"]
        ids = [r[0] for r in b.conn.execute("SELECT id FROM links ORDER BY id")]
        resolved = {r[0]: r[1] for r in b.conn.execute("SELECT id, to_page_id FROM links")}
        assert len(ids) > 2 * many and any(v is None for v in resolved.values()) and any(v is not None for v in resolved.values())
        with b.transaction():
            b.conn.execute("UPDATE links SET to_page_id = (SELECT MIN(id) FROM pages)")
            derive.update_links(b.conn, [(resolved[i], i) for i in ids])
        assert _rows(b)["links"] == want
