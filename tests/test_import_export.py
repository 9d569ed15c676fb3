"""import → export → verify on real files: byte-identical trees, honest reports, nothing lost."""
from __future__ import annotations

import filecmp
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import CORPORA, FIXTURE_BRAIN, gbrain, gbrain_in_process, make_brain
from gbrain.core.brain import Brain
from gbrain.sync.exporter import export_tree
from gbrain.sync.importer import import_tree
from gbrain.sync.scan import scan_tree
from gbrain.sync.verify import verify_tree


def tree_bytes(root: Path) -> dict[str, bytes]:
    out = {}
    for dp, dn, fn in os.walk(root):
        dn[:] = [d for d in dn if d != ".git"]
        for f in fn:
            p = Path(dp) / f
            if not p.is_symlink():
                out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


def roundtrip(src: Path, tmp: Path) -> tuple[dict, dict]:
    with Brain.open(tmp / "rt.db") as b:
        rep = import_tree(b, src)
        out = tmp / "out"
        exp = export_tree(b, out)
    return rep, exp


@pytest.mark.engine_free
def test_fixture_import_report_and_byte_identical_export(tmp_path):
    rep, exp = roundtrip(FIXTURE_BRAIN, tmp_path)
    assert rep["ok"] and exp["ok"], (rep["problems"], exp["problems"])
    assert rep["files_seen"] == rep["files_stored"] == 11
    assert rep["pages"] == 6 and rep["other_files"] == 5
    assert rep["hashes_checked"] == 11 and rep["hash_mismatches"] == []
    assert rep["links"]["parsed_checked"] == rep["links"]["stored_checked"] == 13
    assert rep["links"]["dangling"] == 1
    assert rep["raw"]["sidecars"] == 2 and rep["raw"]["raw_rows_stored"] == 3
    assert tree_bytes(tmp_path / "out") == tree_bytes(FIXTURE_BRAIN)


@pytest.mark.engine_free
def test_special_files_feed_config_and_ingest_log(tmp_path):
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, FIXTURE_BRAIN)
        assert b.get_config("original_index").startswith("# Index")
        assert b.get_config("original_schema").startswith("# Schema")
        rows = b.conn.execute("SELECT source_type, summary, timestamp FROM ingest_log WHERE source_ref = 'log.md' ORDER BY id").fetchall()
        assert [tuple(r) for r in rows] == [("meeting", "Ingested the Ana Lima meeting.", "2025-03-04T00:00:00Z"), ("enrich", "Crustdata refresh for River AI.", "2025-02-01T00:00:00Z")]
        assert b.page_row("index") is None


@pytest.mark.engine_free
def test_reimport_unchanged_writes_nothing(tmp_path, brain_tree, monkeypatch):
    # no racy-clean second (importer.RACY_NS): else a tree copied just before the first import
    # is recorded with stamp 0 and its rows rewritten by an import more than a second later,
    # which under load (a busy CI machine) this second import was
    import gbrain.sync.importer as importer

    monkeypatch.setattr(importer, "RACY_NS", 0)
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        import_tree(b, brain_tree)
    conn = sqlite3.connect(db)
    changes_before = conn.execute("SELECT total_changes()").fetchone()
    mtime = db.stat().st_mtime_ns
    with Brain.open(db) as b:
        before = b.conn.execute("SELECT COUNT(*) FROM ingest_log").fetchone()[0]
        rep = import_tree(b, brain_tree)
        assert rep["counts"] == {"pages_written": 0, "files_written": 0, "unchanged": 11}
        assert b.conn.execute("SELECT COUNT(*) FROM ingest_log").fetchone()[0] == before
        assert b.conn.total_changes == 0
    assert changes_before is not None and mtime <= db.stat().st_mtime_ns


@pytest.mark.engine_free
def test_one_changed_file_is_reimported(tmp_path, brain_tree):
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, brain_tree)
        p = brain_tree / "people" / "bruno-okafor.md"
        p.write_text(p.read_text() + "\n- **2025-05-01** | email — New entry\n")
        rep = import_tree(b, brain_tree)
        assert rep["ok"] and rep["counts"]["pages_written"] == 1 and rep["counts"]["unchanged"] == 10
        assert b.timeline("people/bruno-okafor")[0]["summary"] == "New entry"


def test_import_never_writes_into_the_tree(tmp_path, brain_tree):
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in brain_tree.rglob("*") if p.is_file()}
    r = gbrain("import", str(brain_tree))  # into $GBRAIN_DB: the engine's brain
    assert r.returncode == 0, r.stderr
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in brain_tree.rglob("*") if p.is_file()}
    assert before == after


@pytest.mark.engine_free
def test_messy_files_are_kept(tmp_path):
    root = tmp_path / "messy"
    (root / "notes").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: x")
    (root / "notes" / "latin1.md").write_bytes("caf\xe9\n".encode("latin-1"))
    (root / "notes" / "binary.md").write_bytes(b"\x00\x01\x02")
    (root / "notes" / "image.png").write_bytes(bytes(range(256)))
    (root / "notes" / "ok.md").write_text("---\ntitle: [bad yaml\n---\nbody\n")
    (root / "notes" / ".ok.md.swp").write_bytes(b"swap")
    (root / "notes" / "ok.md~").write_bytes(b"backup")
    (root / "notes" / "ignored.md").write_text("secret")
    (root / ".gbrainignore").write_text("ignored.md\n")
    os.symlink(root / "notes" / "ok.md", root / "notes" / "link.md")
    (root / "people" / ".raw").mkdir(parents=True)
    (root / "people" / ".raw" / "orphan.json").write_text("{not json")
    with Brain.open(tmp_path / "b.db") as b:
        rep = import_tree(b, root)
        assert rep["ok"], rep["problems"]
        kinds = dict(b.conn.execute("SELECT path, kind FROM files").fetchall())
        assert kinds == {"notes/latin1.md": "blob", "notes/binary.md": "blob", "notes/image.png": "blob", ".gbrainignore": "blob", "people/.raw/orphan.json": "raw"}
        assert b.page_row("notes/ok")["frontmatter_error"]
        skipped = {s["path"]: s["reason"] for s in rep["skipped"]}
        assert "symlink" in skipped["notes/link.md"] and "gbrainignore" in skipped["notes/ignored.md"]
        assert any("not valid UTF-8" in w for w in rep["warnings"])
        export_tree(b, tmp_path / "out")
    out = tree_bytes(tmp_path / "out")
    expected = {k: v for k, v in tree_bytes(root).items() if not k.startswith(".git/") and k not in ("notes/.ok.md.swp", "notes/ok.md~", "notes/ignored.md")}
    assert out == expected


@pytest.mark.engine_free
def test_import_of_brain_db_inside_tree_skips_the_db(tmp_path, brain_tree):
    r = gbrain("import", ".", "--db", "brain.db", cwd=brain_tree)
    assert r.returncode == 0, r.stderr
    r2 = gbrain("import", ".", "--db", "brain.db", "--json", cwd=brain_tree)
    assert json.loads(r2.stdout)["counts"]["pages_written"] == 0


@pytest.mark.engine_free
def test_export_writes_only_changed_files_atomically(tmp_path, brain_tree):
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, brain_tree)
        out = tmp_path / "out"
        first = export_tree(b, out)
        assert first["counts"] == {"written": 11, "unchanged": 0, "failed": 0}
        stamp = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
        b.tag("people/ana-lima", "new-tag")
        second = export_tree(b, out)
        assert second["counts"] == {"written": 1, "unchanged": 10, "failed": 0} and second["ok"]
        changed = [p for p in stamp if p.stat().st_mtime_ns != stamp[p]]
        assert [p.relative_to(out).as_posix() for p in changed] == ["people/ana-lima.md"]
        assert not list(out.rglob(".gbrain-tmp-*"))
        b.untag("people/ana-lima", "new-tag")  # back to a version the earlier export wrote
        assert export_tree(b, out)["counts"] == {"written": 1, "unchanged": 10, "failed": 0}


@pytest.mark.engine_free
def test_verify_reports_every_kind_of_difference(tmp_path, brain_tree):
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, brain_tree)
        assert verify_tree(b, scan_tree(brain_tree))["ok"]
        (brain_tree / "people" / "ana-lima.md").write_bytes(b"changed")
        (brain_tree / "new.md").write_text("new")
        (brain_tree / "deals" / "river-ai-series-a.md").unlink()
        rep = verify_tree(b, scan_tree(brain_tree))
        assert not rep["ok"]
        assert rep["hash_mismatches"] == ["people/ana-lima.md"]
        assert rep["missing_in_db"] == ["new.md"]
        assert rep["missing_on_disk"] == ["deals/river-ai-series-a.md"]
    r = gbrain("verify", str(brain_tree), "--db", str(tmp_path / "b.db"))
    assert r.returncode == 1 and b"MISMATCH" in r.stdout


@pytest.mark.engine_free
def test_verify_catches_a_corrupted_derived_row(tmp_path, brain_tree):
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, brain_tree)
        b.conn.execute("DELETE FROM timeline_entries WHERE id = (SELECT MIN(id) FROM timeline_entries)")
        b.conn.execute("DELETE FROM links WHERE id = (SELECT MIN(id) FROM links)")
        rep = verify_tree(b, scan_tree(brain_tree))
        assert not rep["ok"]
        assert any(p.startswith("links:") for p in rep["problems"]) and any(p.startswith("timeline:") for p in rep["problems"])


@pytest.mark.engine_free
def test_verify_compares_stored_hashes_and_samples_the_derived_rows(tmp_path, brain_tree):
    """verify reads and hashes the tree, compares it with the stored hashes and re-parses a random
    sample of pages; --deep re-parses every page."""
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, brain_tree)
        pages = b.conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
        rep = verify_tree(b, scan_tree(brain_tree), sample=3)
        assert rep["ok"] and rep["pages_reparsed"] == 3 and rep["pages_sampled"]
        rep = verify_tree(b, scan_tree(brain_tree), deep=True)
        assert rep["ok"] and rep["pages_reparsed"] == pages and not rep["pages_sampled"]
    r = gbrain("verify", str(brain_tree), "--deep", "--db", str(tmp_path / "b.db"))
    assert r.returncode == 0 and f"in {pages} checked pages" in r.stdout.decode()


class _DrawFirst:
    """A random source for derived_check that draws the page at ``index`` (of the pages in id
    order) first, then the others in order."""

    def __init__(self, index: int) -> None:
        self.index = index

    def randrange(self, a: int, b: int) -> int:
        return self.index if a == 0 else a


@pytest.mark.engine_free
def test_verify_rereads_a_share_of_the_page_text_and_catches_a_changed_row_on_a_drawn_page(tmp_path, monkeypatch):
    """verify re-parses pages drawn at random until it has re-parsed verify.sample_budget's
    characters (a share of the tree's page text, at least SAMPLE_MIN_CHARS), not a fixed number of
    pages; a derived row changed behind gbrain's back on a drawn page is still found, in every
    view: a link's context, a timeline entry, a raw row against its sidecar, and raw rows of a page
    without a sidecar are found without any draw."""
    import random

    from gbrain.sync import verify as V

    src = make_brain(tmp_path / "b", 200)
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, src)
        pages = b.conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
        scan = scan_tree(src)
        budget = V.sample_budget(scan)
        assert budget == max(V.SAMPLE_MIN_CHARS, int(V.SAMPLE_SHARE * sum(f.size for f in scan.files if f.path.endswith(".md"))))
        rep = verify_tree(b, scan)
        assert rep["ok"] and rep["pages_sampled"] and 0 < rep["pages_reparsed"] < pages
        d = V.derived_check(b, budget=budget)
        assert d["sampled"] and d["chars_parsed"] >= budget
        assert d["chars_parsed"] - budget < max(len(b.get_text(s)) for (s,) in b.conn.execute("SELECT slug FROM pages"))  # stops at the budget
        assert not V.derived_check(b, budget=10**9)["sampled"]  # a budget over the whole text: every page

        link_page = b.conn.execute("SELECT from_page_id FROM links WHERE context != '' LIMIT 1").fetchone()[0]
        b.conn.execute("UPDATE links SET context = context || 'x' WHERE id = (SELECT MIN(id) FROM links WHERE from_page_id = ?)", (link_page,))
        tl_page = b.conn.execute("SELECT page_id FROM timeline_entries WHERE page_id != ? LIMIT 1", (link_page,)).fetchone()[0]
        b.conn.execute("UPDATE timeline_entries SET summary = summary || 'x' WHERE id = (SELECT MIN(id) FROM timeline_entries WHERE page_id = ?)", (tl_page,))
        raw_page = b.conn.execute("SELECT page_id FROM raw_data WHERE page_id NOT IN (?, ?) LIMIT 1", (link_page, tl_page)).fetchone()[0]
        # (raw_data is a view of raw_spans since v40: the row's span moved off its value)
        b.conn.execute("UPDATE raw_spans SET len = len - 1 WHERE id = (SELECT MIN(id) FROM raw_spans WHERE page_id = ?)", (raw_page,))
        ids = [r[0] for r in b.conn.execute("SELECT id FROM pages ORDER BY id")]
        for pid, view in ((link_page, "links"), (tl_page, "timeline"), (raw_page, "raw")):
            d = V.derived_check(b, budget=budget, rng=_DrawFirst(ids.index(pid)))
            assert d["sampled"] and d["views_differing"].get(view) == 1, (view, d["views_differing"])
            monkeypatch.setattr(random, "SystemRandom", lambda pid=pid: _DrawFirst(ids.index(pid)))
            rep = verify_tree(b, scan_tree(src))
            assert not rep["ok"] and rep["views_differing"].get(view) == 1, (view, rep["problems"])
        monkeypatch.undo()
        rep = verify_tree(b, scan_tree(src), deep=True)  # --deep: every page
        assert not rep["ok"] and {"links", "timeline", "raw"} <= set(rep["views_differing"])

        no_sidecar = b.conn.execute("SELECT id FROM pages WHERE id NOT IN (SELECT page_id FROM files WHERE kind = 'raw' AND page_id IS NOT NULL) LIMIT 1").fetchone()[0]
        b.conn.execute("INSERT INTO raw_data(page_id, source, data) VALUES (?, 'stray', '1')", (no_sidecar,))
        rep = verify_tree(b, scan_tree(src))
        assert not rep["ok"] and rep["raw"]["raw_rows_without_sidecar"] == 1
        assert any("row(s) of pages that have no sidecar" in p for p in rep["problems"])


@pytest.mark.engine_free
def test_verify_catches_stored_text_that_differs_from_its_hash_and_rows(tmp_path, brain_tree):
    """A page whose stored text no longer gives its stored hash (the text its rows were derived
    from), and a page whose frontmatter JSON differs from its text, are reported by name."""
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, brain_tree)
        b.conn.execute("UPDATE pages SET compiled_truth = compiled_truth || 'x' WHERE slug = 'people/ana-lima'")
        b.conn.execute("UPDATE pages SET frontmatter = '{}' WHERE slug = 'companies/river-ai'")
        for deep in (False, True):
            rep = verify_tree(b, scan_tree(brain_tree), deep=deep)
            assert not rep["ok"]
            assert sorted(rep["derived_mismatches"]) == ["companies/river-ai", "people/ana-lima"]
            assert rep["views_differing"]["text"] == 1 and rep["views_differing"]["frontmatter"] == 1
            # the deep check re-renders every page: the edited text no longer equals the file
            assert rep["hash_mismatches"] == (["people/ana-lima.md"] if deep else [])


@pytest.mark.engine_free
def test_db_roundtrip_after_cli_writes(tmp_path, brain_tree):
    """import → CLI writes → export → import into a new DB gives equal pages, tags, links, timeline, raw."""
    cli = gbrain_in_process  # in-process: the test is about the rows the commands leave, not the process
    db1, db2 = tmp_path / "one.db", tmp_path / "two.db"
    assert cli("import", str(brain_tree), "--db", str(db1)).returncode == 0
    steps = [
        ("tag", "people/ana-lima", "priority"),
        ("untag", "companies/river-ai", "infra"),
        ("timeline-add", "people/bruno-okafor", "--date", "2025-06-01", "--summary", "Term sheet sent", "--source", "email"),
        ("timeline-add", "concepts/hybrid-retrieval", "--date", "2025-06-02", "--summary", "First timeline line"),
        ("link", "deals/river-ai-series-a", "people/bruno-okafor", "--context", "possible lead"),
        ("unlink", "people/ana-lima", "companies/river-ai"),
        ("call", "brain_raw", json.dumps({"slug": "companies/river-ai", "source": "exa", "data": {"articles": 2}})),
        ("call", "brain_put", json.dumps({"slug": "people/ana-lima", "timeline_append": "- **2025-06-03** | call — Closed the round"})),
        ("call", "brain_put", json.dumps({"slug": "people/ana-lima", "frontmatter": {"score": 4}})),
        ("call", "brain_put", json.dumps({"slug": "people/new-person", "compiled_truth": "# New Person\n\nMet at [[River AI]].\n"})),
    ]
    for s in steps:
        r = cli(*s, "--db", str(db1))
        assert r.returncode == 0, (s, r.stderr.decode())
    out = tmp_path / "out"
    assert cli("export", "--dir", str(out), "--db", str(db1)).returncode == 0
    assert cli("import", str(out), "--db", str(db2)).returncode == 0

    def snapshot(db):
        c = sqlite3.connect(db)
        q = lambda sql: sorted(map(tuple, c.execute(sql).fetchall()))  # noqa: E731
        return {
            "pages": q("SELECT slug, path, type, title, compiled_truth, timeline, frontmatter, frontmatter_raw, separator, bom, content_hash FROM pages"),
            "tags": q("SELECT p.slug, t.tag FROM tags t JOIN pages p ON p.id = t.page_id"),
            "links": q("SELECT f.slug, l.kind, l.target, t.slug, l.context FROM links l JOIN pages f ON f.id = l.from_page_id LEFT JOIN pages t ON t.id = l.to_page_id"),
            "timeline": q("SELECT p.slug, e.date, e.source, e.summary, e.detail FROM timeline_entries e JOIN pages p ON p.id = e.page_id"),
            "raw": q("SELECT p.slug, r.source, r.data FROM raw_data r JOIN pages p ON p.id = r.page_id"),
            "files": q("SELECT path, kind, content_hash FROM files"),
        }

    a, b = snapshot(db1), snapshot(db2)
    for k in a:
        assert a[k] == b[k], k
    assert ("people/ana-lima", "priority") in a["tags"]
    assert ("people/bruno-okafor", "2025-06-01", "email", "Term sheet sent", "") in a["timeline"]
    assert any(r[0] == "deals/river-ai-series-a" and r[3] == "people/bruno-okafor" for r in a["links"])
    assert not any(r[0] == "people/ana-lima" and r[3] == "companies/river-ai" for r in a["links"])
    assert ("companies/river-ai", "exa", '{"articles": 2}') in a["raw"]


@pytest.mark.engine_free
def test_killed_import_loses_nothing_and_resumes(tmp_path):
    src = make_brain(tmp_path / "big", 1500)
    db = tmp_path / "k.db"
    env = dict(os.environ, GBRAIN_DB=str(db))
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "import", str(src)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline:  # wait until the first batch has been committed
        try:
            c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
            n = c.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
            c.close()
            if n > 0:
                break
        except sqlite3.Error:
            pass
        time.sleep(0.02)
    p.send_signal(signal.SIGKILL)
    p.wait()
    r = gbrain("import", str(src), "--json", env={"GBRAIN_DB": str(db)})
    assert r.stdout, r.stderr[-3000:]
    rep = json.loads(r.stdout)
    assert r.returncode == 0 and rep["ok"], rep["problems"]
    assert rep["files_seen"] == rep["files_stored"]
    out = tmp_path / "out"
    assert gbrain("export", "--dir", str(out), env={"GBRAIN_DB": str(db)}).returncode == 0
    cmp = filecmp.dircmp(src, out)
    assert not cmp.left_only and not cmp.right_only and not cmp.diff_files


@pytest.mark.engine_free
@pytest.mark.parametrize("corpus", ["gbrain-style", "msdocs-ad-identity"])
def test_small_corpora_roundtrip_byte_identical(tmp_path, corpus):
    src = CORPORA / corpus
    if not src.exists():
        pytest.skip(f"{src} not available")
    rep, exp = roundtrip(src, tmp_path)
    assert rep["ok"] and exp["ok"], (rep["problems"], exp["problems"])
    assert rep["files_seen"] == rep["files_stored"] == len(tree_bytes(src))
    assert tree_bytes(tmp_path / "out") == tree_bytes(src)


@pytest.mark.engine_free
def test_make_brain_200_roundtrip_byte_identical(tmp_path):
    src = make_brain(tmp_path / "b200", 200)
    rep, exp = roundtrip(src, tmp_path)
    assert rep["ok"] and exp["ok"]
    assert rep["raw"]["sidecars"] > 0 and rep["timeline_entries"]["stored"] > 0 and rep["links"]["dangling"] == 0
    assert tree_bytes(tmp_path / "out") == tree_bytes(src)
    with Brain.open(tmp_path / "rt.db") as b:
        assert verify_tree(b, scan_tree(src))["ok"]


@pytest.mark.engine_free
def test_nfc_and_nfd_spellings_of_one_name_are_both_kept(tmp_path):
    root = tmp_path / "uni"
    root.mkdir()
    nfc, nfd = "Zo\u00eb.md", "Zoe\u0308.md"
    (root / nfc).write_text("composed\n")
    (root / nfd).write_text("decomposed\n")
    rep, exp = roundtrip(root, tmp_path)
    assert rep["ok"] and exp["ok"]
    assert any("Unicode normalisation" in w for w in rep["warnings"])
    assert tree_bytes(tmp_path / "out") == tree_bytes(root)
    r = gbrain("get", "Zoe\u0308", "--db", str(tmp_path / "rt.db"))
    assert r.returncode == 0 and r.stdout in (b"composed\n", b"decomposed\n")


@pytest.mark.engine_free
def test_reimport_keeps_edits_made_through_gbrain(tmp_path, brain_tree):
    db = str(tmp_path / "re.db")
    assert gbrain("import", str(brain_tree), "--db", db).returncode == 0
    assert gbrain("tag", "ana-lima", "precious", "--db", db).returncode == 0
    r = gbrain("import", str(brain_tree), "--db", db, "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 0 and rep["ok"], rep["problems"]
    assert rep["kept_brain_edits"] == ["people/ana-lima.md"]
    assert "precious" in json.loads(gbrain("tags", "ana-lima", "--json", "--db", db).stdout)
    # the next sync writes the brain's version out; then import has nothing to say
    assert gbrain("sync", str(brain_tree), "--db", db).returncode == 0
    assert "precious" in (brain_tree / "people" / "ana-lima.md").read_text()


@pytest.mark.engine_free
def test_import_over_a_different_brain_version_keeps_it_in_the_trash(tmp_path, brain_tree):
    db = str(tmp_path / "tr.db")
    assert gbrain("put", "people/ana-lima", "--db", db, input="# a version only the brain had\n").returncode == 0
    r = gbrain("import", str(brain_tree), "--db", db)
    assert r.returncode == 0 and b"replaced; it is in the trash (version 1 of its history: `gbrain revert people/ana-lima --to 1`)" in r.stderr
    trash = json.loads(gbrain("restore", "--json", "--db", db).stdout)
    assert [(t["slug"], t["version"], t["reason"], t["deleted"]) for t in trash] == [("people/ana-lima", 1, "replaced by import", False)]
    assert gbrain("get", "ana-lima", "--db", db).stdout == (brain_tree / "people" / "ana-lima.md").read_bytes()
    assert gbrain("get", "ana-lima", "--version", "1", "--db", db).stdout == b"# a version only the brain had\n"


@pytest.mark.engine_free
def test_a_write_landing_during_import_is_never_silently_overwritten(tmp_path, brain_tree, monkeypatch):
    """A page written by another writer after import scanned the tree (simulated from the progress
    callback, between two windows) is decided on the brain's current bytes, not the scan's."""
    import gbrain.sync.importer as importer

    monkeypatch.setattr(importer, "WINDOW", 2)
    with Brain.open(tmp_path / "race.db") as b:
        import_tree(b, brain_tree)
        target = brain_tree / "people" / "bruno-okafor.md"  # a later window than the first
        target.write_text(target.read_text() + "\nEdited on disk.\n")
        fired = []

        def on_progress(done, total):
            if not fired:
                fired.append(done)
                b.tag("people/bruno-okafor", "written-meanwhile")

        rep = import_tree(b, brain_tree, on_progress=on_progress)
        assert fired and rep["ok"], rep["problems"]
        assert "Edited on disk." in b.get_text("people/bruno-okafor")  # the file won, as import does
        from gbrain.core import history as h

        trashed = [h.get_version(b, t["slug"], t["version"])["content"] for t in h.trash_list(b, limit=0) if t["path"] == "people/bruno-okafor.md"]
        assert any("written-meanwhile" in t for t in trashed)  # and the brain's write was kept


@pytest.mark.engine_free
def test_export_checks_the_tree_from_the_hashes_of_what_it_wrote(tmp_path, brain_tree, monkeypatch):
    """Export's check compares the tree with the stored hashes using the hashes of the bytes it
    wrote (issue 14: export at ≤ 2× a plain copy): nothing it wrote is read back, but a file
    changed after it was written and a file export did not write are read, and reported."""
    from gbrain.sync import verify as verify_mod

    reads: list[str] = []
    real = verify_mod._sha256_sized
    monkeypatch.setattr(verify_mod, "_sha256_sized", lambda path, size, *buf: (reads.append(path), real(path, size, *buf))[1])
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, brain_tree)
        reads.clear()
        out = tmp_path / "out"
        rep = export_tree(b, out)
        assert rep["ok"] and rep["hashes_checked"] == 11 and reads == []
        (out / "stray.md").write_text("# Stray\n")
        rep = export_tree(b, out)  # nothing to write; the stray file is read and reported
        assert rep["counts"]["unchanged"] == 11 and rep["missing_in_db"] == ["stray.md"] and not rep["ok"]
        assert [os.path.basename(p) for p in reads] == ["stray.md"]
        (out / "stray.md").unlink()
        reads.clear()

        def meddle(done, total):  # another program edits a file export has just written
            if done == total:
                (out / "people" / "ana-lima.md").write_bytes(b"edited meanwhile\n")

        b.tag("people/ana-lima", "meddled")
        rep = export_tree(b, out, on_progress=meddle)
        assert rep["hash_mismatches"] == ["people/ana-lima.md"] and not rep["ok"]
        assert [os.path.basename(p) for p in reads] == ["ana-lima.md"]


@pytest.mark.engine_free
def test_import_of_a_second_folder_into_a_bound_brain_says_so(tmp_path, brain_tree):
    """The quick start's brain holds the example pages and is bound to fixtures/brain; importing
    one's own vault into the same brain.db must say the pages are mixed, not pass in silence."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "note.md").write_text("# Mine\n")
    db = tmp_path / "b.db"
    assert gbrain("--db", str(db), "import", str(brain_tree)).returncode == 0
    r = gbrain("--db", str(db), "import", str(mine))
    assert r.returncode == 0
    err = r.stderr.decode()
    assert "already holds" in err and str(brain_tree) in err and "--db" in err
    again = gbrain("--db", str(db), "import", str(brain_tree))  # the bound folder: no such note
    assert b"already holds" not in again.stderr
    fresh = gbrain("--db", str(tmp_path / "c.db"), "import", str(mine))
    assert b"already holds" not in fresh.stderr
    out = r.stdout.decode()  # the report: this folder's counts apart from the brain's, no list of the others
    assert "Files seen 1 → stored 1; the brain now holds 7 pages" in out and "missing_on_disk:" not in out, out


def _imported_copy(tmp_path, brain_tree):
    """A brain imported from ``brain_tree`` and a copy of that tree it is not bound to."""
    import shutil

    db = str(tmp_path / "i.db")
    assert gbrain("import", str(brain_tree), "--db", db).returncode == 0
    copy = tmp_path / "copy"
    shutil.copytree(brain_tree, copy, symlinks=True)
    return db, copy


@pytest.mark.engine_free
def test_verify_says_what_matched_differs_and_is_only_on_one_side(tmp_path, brain_tree):
    """Trial: `verify DIR` on a folder and a brain that each held something the other did not
    said "Files seen 11 → stored 10 (pages 7, other files 5)" and "Content hashes checked: 11,
    mismatches: 1": counts of different things side by side (the folder's files, those of them the
    brain has, the brain's own totals). It now says, in words, how many files are the same on both
    sides, which differ, which are only in the brain and which only in the folder; --json adds
    those (`comparison`, `different`, `only_in_brain`, `only_in_folder`) and keeps the old keys."""
    db, copy = _imported_copy(tmp_path, brain_tree)
    ana = copy / "people" / "ana-lima.md"
    ana.write_bytes(ana.read_bytes() + b"edited on disk\n")
    (copy / "notes.md").write_text("# Only in the folder\n")
    assert gbrain("--db", db, "put", "ideas/only-in-brain", "--content", "# Only in the brain\n").returncode == 0
    r = gbrain("--db", db, "verify", str(copy))
    assert r.returncode == 1, r.stderr
    out = r.stdout.decode().splitlines()
    assert out[:5] == [
        f"Compared {copy} (12 files) with the brain (12: 7 pages, 5 other files):",
        "  the same in both: 10",
        "  different (in both, other bytes): 1: people/ana-lima.md",
        "  only in the brain (not in the folder): 1: ideas/only-in-brain.md",
        "  only in the folder (not in the brain): 1: notes.md",
    ], out
    assert not any(x.startswith(("Files seen", "Content hashes checked", "  missing_in_db:", "  missing_on_disk:", "  hash_mismatches:")) for x in out), out
    j = json.loads(gbrain("--db", db, "verify", str(copy), "--json").stdout)
    assert j["comparison"] == {"in_folder": 12, "in_brain": 12, "same": 10, "different": 1, "only_in_brain": 1, "only_in_folder": 1}
    assert (j["different"], j["only_in_brain"], j["only_in_folder"]) == (["people/ana-lima.md"], ["ideas/only-in-brain.md"], ["notes.md"])
    # the old keys stay (deprecated): the same lists under their old names, and the old counts
    assert (j["hash_mismatches"], j["missing_on_disk"], j["missing_in_db"]) == (["people/ana-lima.md"], ["ideas/only-in-brain.md"], ["notes.md"])
    assert (j["files_seen"], j["files_stored"], j["hashes_checked"], j["pages"], j["other_files"]) == (12, 11, 12, 7, 5)
    # all the same: one plain line
    ok = gbrain("--db", db, "verify", str(brain_tree)).stdout.decode().splitlines()
    assert ok[0] == f"Compared {brain_tree} (11 files) with the brain (12: 7 pages, 5 other files):", ok
    assert ok[1:3] == ["  the same in both: 11", "  only in the brain (not in the folder): 1: ideas/only-in-brain.md"] and not ok[3].startswith("  "), ok


@pytest.mark.engine_free
def test_export_refuses_to_replace_files_that_differ_and_writes_nothing(tmp_path, brain_tree):
    """An edit that exists only on disk is never silently overwritten."""
    db, copy = _imported_copy(tmp_path, brain_tree)
    ana = copy / "people" / "ana-lima.md"
    ana.write_bytes(ana.read_bytes() + b"precious\n")
    assert gbrain("--db", db, "tag", "people/ana-lima", "fresh").returncode == 0
    assert gbrain("--db", db, "tag", "companies/river-ai", "fresh").returncode == 0  # the brain's own change: no clash
    (copy / "companies" / "river-ai.md").unlink()
    before = tree_bytes(copy)
    r = gbrain("--db", db, "export", "--dir", str(copy))
    assert r.returncode == 2, r.stderr
    assert b"1 file(s)" in r.stderr and b"people/ana-lima.md" in r.stderr and b"nothing was written" in r.stderr and b"--overwrite" in r.stderr
    assert tree_bytes(copy) == before


def test_export_refusal_says_which_files_differ_only_in_line_endings(tmp_path, brain_tree, db_path):
    """trial10: `export --dir` into a git clone checked out with `core.autocrlf=true` (CRLF on
    disk, LF in the brain) was refused with "885 file(s) differ" and nothing more. The refusal
    (still a refusal, nothing written) says how many differ only in line endings, that git's
    autocrlf does that, and how to get a folder without the conversion; a file with another
    difference is not counted among them."""
    import shutil

    db = str(db_path)
    assert gbrain_in_process("--db", db, "import", str(brain_tree)).returncode == 0
    copy = tmp_path / "clone"
    shutil.copytree(brain_tree, copy)
    crlf = sorted(p for p in copy.rglob("*.md") if b"\n" in p.read_bytes() and b"\r" not in p.read_bytes())[:3]
    assert len(crlf) == 3
    for p in crlf:  # what a checkout with core.autocrlf=true writes
        p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n"))
    ana = copy / "people" / "ana-lima.md"
    assert ana not in crlf
    ana.write_bytes(ana.read_bytes() + b"precious\n")
    before = tree_bytes(copy)
    r = gbrain_in_process("--db", db, "export", "--dir", str(copy))
    err = r.stderr.decode()
    assert r.returncode == 2 and "4 file(s)" in err and "nothing was written" in err, err
    assert "3 of them differ only in line endings (CRLF in the folder, LF in the brain)" in err, err
    assert "core.autocrlf" in err and "git clone -c core.autocrlf=false" in err, err
    assert tree_bytes(copy) == before
    ana.write_bytes(ana.read_bytes()[: -len(b"precious\n")])  # only line endings differ now
    r = gbrain_in_process("--db", db, "export", "--dir", str(copy), "--json")
    err = r.stderr.decode()
    assert r.returncode == 2 and "3 file(s)" in err and "All of them differ only in line endings" in err, err
    assert "gbrain import" not in err and "--overwrite" in err, err  # importing CRLF copies is no advice
    ana.write_bytes(ana.read_bytes() + b"precious\n")  # no line-ending difference: nothing said of it
    for p in crlf:
        p.write_bytes(p.read_bytes().replace(b"\r\n", b"\n"))
    err = gbrain_in_process("--db", db, "export", "--dir", str(copy)).stderr.decode()
    assert "1 file(s)" in err and "line endings" not in err and "autocrlf" not in err and "gbrain import" in err, err


@pytest.mark.engine_free
def test_export_into_a_missing_folder_says_it_created_it(tmp_path, brain_tree):
    """`export --dir` creates a missing folder (and its parents) as `get --output` does, and says
    so (`created_folders` in --json); into a folder that exists it says nothing of the kind."""
    db = str(tmp_path / "b.db")
    assert gbrain("--db", db, "import", str(brain_tree)).returncode == 0
    out = tmp_path / "new" / "deeper"
    r = gbrain("--db", db, "export", "--dir", str(out))
    assert r.returncode == 0 and tree_bytes(out) == tree_bytes(brain_tree), r.stderr
    assert r.stdout.decode().splitlines()[0] == f"Created the folders {tmp_path / 'new'}, {out}", r.stdout
    r = gbrain("--db", db, "export", "--dir", str(out), "--json")
    assert r.returncode == 0 and "created_folders" not in json.loads(r.stdout) and b"Created" not in r.stdout
    r = gbrain("--db", db, "export", "--dir", str(tmp_path / "new" / "other"), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["created_folders"] == [str(tmp_path / "new" / "other")]


@pytest.mark.engine_free
def test_export_again_after_a_killed_export_removes_its_partial_temp_file(tmp_path, brain_tree):
    """trial6: `kill -9` of an export left `.gbrain-tmp-<pid>-<n>` (a partial copy of a file it
    was writing) in the export folder, and every later export said "Validation: OK" and left it
    there, for a `git add -A` of the export to commit. The next export removes a temp file of
    a gbrain process that is gone (as sync does in its folder) and says so; a live one's stays."""
    db = str(tmp_path / "b.db")
    assert gbrain("--db", db, "import", str(brain_tree)).returncode == 0
    out = tmp_path / "out"
    assert gbrain("--db", db, "export", "--dir", str(out)).returncode == 0
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(gone.stdout)
    partial = out / "people" / f".gbrain-tmp-{dead}-6039820837"
    partial.write_bytes(b"---\ntitle: Ana Li")
    alive = out / "people" / f".gbrain-tmp-{os.getpid()}-1"
    alive.write_bytes(b"being written")
    r = gbrain("--db", db, "export", "--dir", str(out))
    assert r.returncode == 0, r.stderr
    assert not partial.exists() and alive.exists()
    assert f"people/.gbrain-tmp-{dead}-6039820837" in r.stdout.decode() + r.stderr.decode()
    alive.unlink()
    assert tree_bytes(out) == tree_bytes(brain_tree)


@pytest.mark.engine_free
def test_export_overwrite_keeps_the_replaced_bytes_in_the_history(tmp_path, brain_tree):
    db, copy = _imported_copy(tmp_path, brain_tree)
    ana = copy / "people" / "ana-lima.md"
    edited = ana.read_bytes() + b"precious\n"
    ana.write_bytes(edited)
    (copy / "new-only-on-disk.md").write_text("# mine\n")
    r = gbrain("--db", db, "export", "--dir", str(copy), "--overwrite")
    assert r.returncode in (0, 1), r.stderr  # 1: verify reports the file the brain does not know
    assert b"precious" not in ana.read_bytes()
    assert (copy / "new-only-on-disk.md").read_text() == "# mine\n"  # not the brain's: untouched
    trash = json.loads(gbrain("--db", db, "trash", "--json").stdout)
    kept = [t for t in trash if t["slug"] == "people/ana-lima"]
    assert kept and "export --overwrite" in kept[0]["reason"], trash
    assert gbrain("--db", db, "get", "people/ana-lima", "--version", str(kept[0]["version"])).stdout == edited
    assert gbrain("--db", db, "export", "--dir", str(copy)).returncode in (0, 1)  # nothing differs now


@pytest.mark.engine_free
def test_export_into_the_folder_the_brain_is_bound_to_points_to_sync(tmp_path, brain_tree):
    """The new-user repro: import v, edit v, export --dir v."""
    db = str(tmp_path / "i.db")
    assert gbrain("import", str(brain_tree), "--db", db).returncode == 0
    ana = brain_tree / "people" / "ana-lima.md"
    ana.write_bytes(ana.read_bytes() + b"precious\n")
    before = tree_bytes(brain_tree)
    for extra in ((), ("--overwrite",)):
        r = gbrain("--db", db, "export", "--dir", str(brain_tree), *extra)
        assert r.returncode == 2 and b"gbrain sync" in r.stderr and b"people/ana-lima.md" in r.stderr, r.stderr
        assert tree_bytes(brain_tree) == before
    assert gbrain("--db", db, "export", "--dir", str(tmp_path / "elsewhere")).returncode == 0


@pytest.mark.engine_free
def test_verify_names_the_command_that_reconciles_a_page_written_since(tmp_path, brain_tree):
    """`verify DIR` after a `put` fails (the page is not in the folder) and says that `gbrain sync`
    writes it, instead of only "not on disk"."""
    db = str(tmp_path / "b.db")
    assert gbrain("--db", db, "import", str(brain_tree)).returncode == 0
    assert gbrain("--db", db, "put", "notes/new", input="# New\n").returncode == 0
    r = gbrain("--db", db, "verify", str(brain_tree))
    assert r.returncode == 1 and b"not on disk" in r.stdout + r.stderr and b"gbrain sync" in r.stdout + r.stderr


@pytest.mark.engine_free
def test_a_second_folder_never_replaces_a_page_of_the_bound_folder(tmp_path, brain_tree):
    """Importing another folder into a brain bound to a vault: a file at a path the vault's page
    already has, with other bytes, is not taken (the next sync would have written it over the
    vault's note); import says so and how to take it on purpose; the vault stays as it was
    after a sync. A new path of the second folder is added as before."""
    db = str(tmp_path / "b.db")
    assert gbrain("--db", db, "import", str(brain_tree)).returncode == 0
    other = tmp_path / "other"
    (other / "people").mkdir(parents=True)
    before = (brain_tree / "people" / "ana-lima.md").read_bytes()
    (other / "people" / "ana-lima.md").write_text("# A different Ana\n")
    (other / "people" / "zoe.md").write_text("# Zoe\n")
    r = gbrain("--db", db, "import", str(other))
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "people/ana-lima.md" in err and "kept the brain's version" in err and "gbrain put people/ana-lima --file" in err
    assert gbrain("--db", db, "get", "people/ana-lima").stdout == before
    assert gbrain("--db", db, "get", "zoe").returncode == 0
    assert gbrain("--db", db, "sync", str(brain_tree)).returncode == 0
    assert (brain_tree / "people" / "ana-lima.md").read_bytes() == before


@pytest.mark.engine_free
def test_export_into_an_earlier_export_names_the_stale_files(tmp_path, brain_tree):
    """Exporting again into a folder after a page was deleted: the old file stays (export deletes
    nothing) and the report says it is left from an earlier export, not "sync takes it in"."""
    from gbrain.sync.exporter import export_tree

    out = tmp_path / "out"
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, brain_tree)
        assert export_tree(b, out)["ok"]
        b.delete_page("people/ana-lima")
        rep = export_tree(b, out)
    assert not rep["ok"] and rep["missing_in_db"] == ["people/ana-lima.md"]
    text = " ".join(rep["problems"])
    assert "earlier export" in text and "sync" not in text, text
    assert (out / "people" / "ana-lima.md").exists()


@pytest.mark.engine_free
def test_an_import_killed_before_resolving_its_links_is_finished_by_the_next(tmp_path, monkeypatch):
    """Links are resolved once at the end of an import; one killed after committing its pages
    and before that left every link dangling, and a re-run that found nothing changed never
    resolved them (a fresh import of the same tree resolves them all). The first batch now marks
    the brain; the next import resolves every link and clears the mark."""
    from gbrain.sync import importer

    v = tmp_path / "v"
    for i in range(6):
        (v / "n").mkdir(parents=True, exist_ok=True)
        (v / "n" / f"p{i}.md").write_text(f"# P{i}\n\nSee [[p{(i + 1) % 6}]] and [P{(i + 2) % 6}](p{(i + 2) % 6}.md).\n", encoding="utf-8")
    monkeypatch.setattr(importer, "BATCH", 2)

    def links(b):
        return sorted(tuple(r) for r in b.conn.execute("SELECT f.slug, l.target, t.slug FROM links l JOIN pages f ON f.id = l.from_page_id LEFT JOIN pages t ON t.id = l.to_page_id"))

    with Brain.open(tmp_path / "fresh.db") as b:
        import_tree(b, v)
        want = links(b)
    assert all(r[2] for r in want) and len(want) == 12
    with Brain.open(tmp_path / "b.db") as b:
        def killed(*a, **k):
            raise KeyboardInterrupt

        with monkeypatch.context() as m:
            m.setattr(Brain, "re_resolve", killed)
            with pytest.raises(KeyboardInterrupt):
                import_tree(b, v)
    with Brain.open(tmp_path / "b.db") as b:
        assert b.stats()["pages"] == 6 and not any(r[2] for r in links(b))  # committed, unresolved
        rep = import_tree(b, v)
        assert rep["counts"]["pages_written"] == 0
        assert links(b) == want
        assert b.get_config(importer.RESOLVE_PENDING) is None
        import_tree(b, v)
        assert links(b) == want


@pytest.mark.engine_free
def test_new_pages_links_kept_back_or_spilled_give_the_same_rows(tmp_path, monkeypatch):
    """Bulk import keeps the new pages' links back and writes them once, resolved, at its end
    (``derive.PendingLinks``); past its memory bound it writes them dangling at once and the
    end resolves them. Either way the link rows (order within a page included) are the same."""
    from gbrain.storage import derive
    from gbrain.sync import importer

    v = tmp_path / "v"
    for i in range(8):
        (v / f"d{i % 3}").mkdir(parents=True, exist_ok=True)
        (v / f"d{i % 3}" / f"p{i}.md").write_text(
            f"---\naliases: [Alias {i}]\n---\n# P{i}\n\nSee [[p{(i + 1) % 8}]], [[Alias {(i + 3) % 8}]], [x](../d0/p0.md) and [[nowhere]].\n", encoding="utf-8")
    monkeypatch.setattr(importer, "BATCH", 3)

    def links(b):
        return [tuple(r) for r in b.conn.execute(
            "SELECT f.slug, l.kind, l.target, t.slug, l.context, l.count FROM links l JOIN pages f ON f.id = l.from_page_id "
            "LEFT JOIN pages t ON t.id = l.to_page_id ORDER BY f.slug, l.id")]

    got = []
    for limit in (derive.PendingLinks.LIMIT, 1):
        monkeypatch.setattr(derive.PendingLinks, "LIMIT", limit)
        with Brain.open(tmp_path / f"b{limit}.db") as b:
            assert import_tree(b, v)["ok"]
            got.append(links(b))
    assert got[0] == got[1] and len(got[0]) == 32
    assert sum(1 for r in got[0] if r[3] is None) == 8  # [[nowhere]] only


@pytest.mark.engine_free
def test_verify_help_states_the_sample_it_draws():
    """The verify description's figures are the sample the code draws (it once said 25 pages
    after the sample became a share of the text)."""
    from gbrain.operations import REGISTRY
    from gbrain.sync.verify import SAMPLE_MIN_CHARS, SAMPLE_SHARE

    o = REGISTRY["verify"]
    assert f"{SAMPLE_SHARE * 100:g}% of the page text" in o.details  # (the figures after the user's words: rt71)
    assert f"{SAMPLE_MIN_CHARS:,} characters" in o.details
    assert "25 pages" not in o.description + o.details


@pytest.mark.engine_free
def test_verify_after_a_killed_import_says_to_run_the_import_again(tmp_path, monkeypatch):
    """A chaos trial: verify right after a killed import reported ``MISMATCH: … link targets``
    and ``… link(s) point at another page than a fresh import would resolve`` and advised
    `gbrain sync DIR`. The import's mark (``RESOLVE_PENDING``, cleared by its last step) tells
    that it did not finish: verify says so and names `gbrain import DIR`."""
    from gbrain.sync import importer
    from gbrain.sync.scan import scan_tree
    from gbrain.sync.verify import verify_tree

    v = tmp_path / "v"
    (v / "n").mkdir(parents=True)
    for i in range(6):
        (v / "n" / f"p{i}.md").write_text(f"# P{i}\n\nSee [[p{(i + 1) % 6}]].\n", encoding="utf-8")
    monkeypatch.setattr(importer, "BATCH", 2)
    with Brain.open(tmp_path / "b.db") as b:
        def killed(*a, **k):
            raise KeyboardInterrupt

        with monkeypatch.context() as m:
            m.setattr(Brain, "re_resolve", killed)
            with pytest.raises(KeyboardInterrupt):
                import_tree(b, v)
    with Brain.open(tmp_path / "b.db") as b:
        rep = verify_tree(b, scan_tree(v))
        assert not rep["ok"]
        assert rep["problems"][0] == "the last import did not finish; run `gbrain import DIR` again", rep["problems"]
        assert not any("gbrain sync" in p for p in rep["problems"]), rep["problems"]
        import_tree(b, v)
        assert verify_tree(b, scan_tree(v))["ok"]


def test_export_prune_removes_only_an_earlier_exports_files(tmp_path, db_path):
    """Trial: after a rename, `export --dir OUT` into an earlier export failed for good ("2 file(s)
    … are not in the brain … export deletes nothing"). `--prune` removes the files an earlier
    export of this brain wrote (bytes a version of the page at that path), never others, and lists
    them; without it the message names --prune."""
    cli = gbrain_in_process  # in-process: the test is about what export/sync do, not the process
    v, out = tmp_path / "v", tmp_path / "out"
    (v / "d").mkdir(parents=True)
    (v / "d" / "a.md").write_text("# A\n")
    (v / "b.md").write_text("# B\n")
    db = str(db_path)
    assert cli("--db", db, "import", str(v)).returncode == 0
    assert cli("--db", db, "export", "--dir", str(out)).returncode == 0
    (v / "d").rename(v / "e")
    (v / "b.md").rename(v / "c.md")
    assert cli("--db", db, "sync", str(v)).returncode == 0
    (out / "mine.md").write_text("# B\n")  # another page's bytes, but never exported at this path
    (out / "notes.txt").write_text("keep me\n")
    r = cli("--db", db, "export", "--dir", str(out))
    assert r.returncode == 1 and "4 file(s)" in r.stdout.decode() and "--prune" in r.stdout.decode(), r.stdout
    r = cli("--db", db, "export", "--dir", str(out), "--prune")
    text = r.stdout.decode()
    assert "Pruned (removed: not in the brain, an earlier export's bytes): 2 file(s): b.md, d/a.md" in text, text
    assert "2 file(s) in" in text and "--prune left them" in text and r.returncode == 1, text
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == ["c.md", "e", "e/a.md", "mine.md", "notes.txt"]
    (out / "mine.md").unlink()
    (out / "notes.txt").unlink()
    r = cli("--db", db, "export", "--dir", str(out), "--prune", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["pruned_count"] == 0, r.stdout


def test_import_text_report_names_the_skipped_paths_with_their_reasons(tmp_path, db_path):
    """Trial: the report said `Skipped: 1 (symlinks, ignored, unreadable; see --json)` without
    naming it (README: symlinks are "listed in the report"). Up to 10 are named, with reasons."""
    v = tmp_path / "v"
    v.mkdir()
    (v / "a.md").write_text("# A\n")
    os.symlink("a.md", v / "link.md")
    for i in range(11):
        os.symlink("a.md", v / f"s{i:02}.md")
    r = gbrain("--db", str(db_path), "import", str(v))
    out = r.stdout.decode()
    assert r.returncode == 0 and "Not read in the folder: 12 (12 symlinks)" in out, out
    assert "  link.md: symlink (not followed)" in out and "  s00.md: symlink (not followed)" in out, out
    assert "  s09.md: symlink" not in out and "  … and 2 more (--json lists 12)" in out, out


@pytest.mark.engine_free
def test_import_reports_progress_after_each_commit_not_only_each_window(tmp_path, monkeypatch):
    """Trial 62 (a cron job's import logging to a file): the plain progress line promised every
    10 s came first after 27 s on a loaded machine, since progress was reported once per window
    of ``WINDOW`` (2,000) files read and parsed together. It is now reported after each commit
    of ``BATCH`` files too, rising, the window's end last."""
    import gbrain.sync.importer as importer

    monkeypatch.setattr(importer, "BATCH", 5)
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(20):
        (tree / f"note-{i}.md").write_text(f"# Note {i}\n\nbody {i}\n")
    seen = []
    with Brain.open(tmp_path / "p.db") as b:
        rep = import_tree(b, tree, on_progress=lambda done, total: seen.append((done, total)))
    assert rep["ok"], rep["problems"]
    assert seen[-1] == (20, 20) and all(t == 20 for _, t in seen), seen
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and len({d for d, _ in seen if d < 20}) >= 3, seen


@pytest.mark.engine_free
def test_import_reports_progress_before_its_first_commit(tmp_path, monkeypatch):
    """Busy-wait review, item 5: the first progress report of an import came with its first
    commit of ``BATCH`` files (19-27 s into obsidian-hub's import on a loaded machine: the plain
    line promised every 10 s, and a terminal's bar, showed nothing until then). It now reports at
    the start (0 done) and every ``PROGRESS_STEP`` files parsed and written, rising, before any
    of the files it counts is committed."""
    import sqlite3

    import gbrain.sync.importer as importer

    monkeypatch.setattr(importer, "BATCH", 100)  # one commit for the whole tree
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(90):
        (tree / f"note-{i}.md").write_text(f"# Note {i}\n\nbody {i} [[note-{(i + 1) % 90}]]\n")
    db = tmp_path / "p.db"
    seen = []
    with Brain.open(db) as b:
        def on_progress(done, total):  # what another connection sees committed when each report comes
            with sqlite3.connect(db) as other:
                seen.append((done, total, other.execute("SELECT count(*) FROM pages").fetchone()[0]))

        rep = import_tree(b, tree, on_progress=on_progress)
    assert rep["ok"], rep["problems"]
    assert seen[0] == (0, 90, 0) and seen[-1][:2] == (90, 90), seen
    assert [d for d, _, _ in seen] == sorted(d for d, _, _ in seen), seen
    assert len({d for d, _, committed in seen if 0 < d < 90 and committed == 0}) >= 3, seen
