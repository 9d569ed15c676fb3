"""The parts of plain ``gbrain verify`` made cheaper give what the costlier code gave: the page ids
the sample is drawn from, the report's counts, the sample's budget."""
from __future__ import annotations

from conftest import make_brain
from gbrain.core.brain import Brain
from gbrain.sync import verify as V
from gbrain.sync.importer import import_tree
from gbrain.sync.scan import scan_tree
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)


def test_page_ids_report_counts_and_budget_equal_what_they_replace(tmp_path):
    """``verify.page_ids_unordered`` (one ``group_concat`` string on SQLite, not a row per page)
    holds every page id once, also after deletions and for an empty brain; the report's link,
    tag, timeline, file and frontmatter-error counts equal :meth:`Brain.stats` (resolved links
    are all links less the dangling ones); ``sample_budget`` counts ``.md`` in any case."""
    src = make_brain(tmp_path / "b", 60)
    (src / "Upper.MD").write_text("# Upper\n\n[[nowhere]] and [[people/p0000]]\n", encoding="utf-8")
    (src / "broken.md").write_text("---\ntitle: [unclosed\n---\n\nbody\n", encoding="utf-8")
    with Brain.open(tmp_path / "b.db") as b:
        assert V.page_ids_unordered(b.conn) == []
        import_tree(b, src)
        c = b.conn
        stats = b.stats()
        counts = V._counts(b)
        assert counts == {k: stats[k] for k in counts}
        assert counts["links_dangling"] > 0 and counts["links_resolved"] > 0 and counts["frontmatter_errors"] == 1
        rep = V.verify_tree(b, scan_tree(src, sizes=False))
        assert rep["ok"], rep["problems"]
        assert (rep["links"]["stored"], rep["links"]["resolved"], rep["links"]["dangling"]) == (stats["links"], stats["links_resolved"], stats["links_dangling"])
        assert (rep["tags"]["stored"], rep["timeline_entries"]["stored"], rep["other_files"], rep["frontmatter_errors"]) == (
            stats["tags"], stats["timeline_entries"], stats["files"], stats["frontmatter_errors"])

        scan = scan_tree(src)
        md = sum(f.size for f in scan.files if f.path[-3:].lower() == ".md")
        assert any(f.path == "Upper.MD" for f in scan.files)
        assert V.sample_budget(scan) == max(V.SAMPLE_MIN_CHARS, int(md * V.SAMPLE_SHARE))
        assert all(("x" + e).endswith(V._MD) for e in (".md", ".MD", ".Md", ".mD")) and not "x.mdx".endswith(V._MD)

        c.execute("DELETE FROM pages WHERE id IN (SELECT id FROM pages ORDER BY id LIMIT 3 OFFSET 5)")  # ids with gaps
        want = [r[0] for r in c.execute("SELECT id FROM pages ORDER BY id")]
        got = V.page_ids_unordered(c)
        assert sorted(got) == want and len(got) == len(set(got)) and want[-1] > len(want)


@pytest.mark.engine_free
def test_a_file_differing_from_the_brain_names_sync_as_the_other_differences_do(tmp_path):
    """Trial 30: after `gbrain put … --timeline-append` on a synced vault, `gbrain verify VAULT`
    said "MISMATCH: 2 file(s) differ from what the DB renders / Validation: FAILED" and no more,
    where a file only in the folder or only in the brain is told `gbrain sync DIR`: an edit on
    either side since the last sync is what a differing file usually is."""
    from conftest import gbrain_in_process, write_tree

    root = write_tree(tmp_path / "vault", {"notes/a.md": "# A\n\nText.\n", "notes/b.md": "# B\n"})
    db = str(tmp_path / "brain.db")
    assert gbrain_in_process("--db", db, "import", str(root)).returncode == 0
    assert gbrain_in_process("--db", db, "put", "notes/a", "--timeline-append", "- **2026-12-04** | call").returncode == 0
    r = gbrain_in_process("--db", db, "verify", str(root))
    assert r.returncode == 1, r
    out = r.stdout.decode()
    assert "MISMATCH: 1 file(s) differ from what the DB renders" in out and "`gbrain sync DIR`" in out.split("differ from what the DB renders", 1)[1].splitlines()[0], out
