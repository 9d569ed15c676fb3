"""A ``---`` below a ``%%`` comment left open above it is inside the comment (Obsidian hides the
rest of the note) and no timeline separator (tests/test_obsidian_names.py has the page model's
cases); a brain stored before that rule is split again by its upgrade, as a fresh import reads it."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree


def test_a_brain_split_at_a_rule_inside_a_comment_is_split_again_as_a_fresh_import(db_path, tmp_path, monkeypatch):
    """A brain stored before a ``---`` below a ``%%`` left open stopped being the separator holds
    such pages cut at that line (their timeline rows, search text): the upgrade's
    :func:`gbrain.storage.db.resplit_comment_pages` splits them again from the same bytes, as a
    fresh import reads them, and leaves every other page (and the history) alone."""
    from gbrain.page import markdown
    from gbrain.storage.db import resplit_comment_pages
    from gbrain.sync.verify import fresh_import_differences

    tree = tmp_path / "v"
    tree.mkdir()
    hidden = "# T\n\nA %% opened and never closed\n\n---\n\n- **2025-01-02** | call — [[x]] #t\n"
    (tree / "hidden.md").write_text(hidden)
    (tree / "shown.md").write_text("# S\n\nA %% closed %% here\n\n---\n\n- **2025-01-03** | call — y\n")
    (tree / "x.md").write_text("x\n")
    with monkeypatch.context() as m:
        m.setattr(markdown, "_in_inline_comment", lambda *a: False)  # the rule before
        with Brain.open(db_path, create=True) as b:
            assert import_tree(b, tree)["ok"]
            assert b.conn.execute("SELECT separator FROM pages WHERE slug = 'hidden'").fetchone()[0] == "---\n"
    with Brain.open(db_path) as b:
        versions = b.conn.execute("SELECT COUNT(*) FROM history").fetchone()[0]
        assert fresh_import_differences(b) != {}
        with b.transaction():
            assert resplit_comment_pages(b.conn) == 1
        assert fresh_import_differences(b) == {}
        row = b.conn.execute("SELECT compiled_truth, separator, timeline FROM pages WHERE slug = 'hidden'").fetchone()
        assert tuple(row) == (hidden, "", "")
        assert b.conn.execute("SELECT COUNT(*) FROM timeline_entries te JOIN pages p ON p.id = te.page_id WHERE p.slug = 'hidden'").fetchone()[0] == 0
        assert b.conn.execute("SELECT COUNT(*) FROM history").fetchone()[0] == versions  # same bytes: no version
        with b.transaction():
            assert resplit_comment_pages(b.conn) == 0


@pytest.mark.pg_empty  # made at the schema before by this test, not a copy of a migrated brain
def test_the_upgrade_splits_such_a_page_again(db_path, tmp_path, monkeypatch):
    """A brain at SQLite v68 / Postgres v73 (before the rule) opened by this gbrain: the v69 / v74
    upgrade leaves it equal to a fresh import of the same tree."""
    from conftest import brain_at_version
    from gbrain.page import markdown
    from gbrain.sync.verify import fresh_import_differences

    tree = tmp_path / "v"
    tree.mkdir()
    (tree / "hidden.md").write_text("# T\n\n%%\nnever closed\n\n---\n\n- **2025-01-02** | call — [[x]]\n")
    (tree / "x.md").write_text("x\n")
    with monkeypatch.context() as m:
        m.setattr(markdown, "_in_inline_comment", lambda *a: False)
        with brain_at_version(db_path, sqlite=68, postgres=73) as b:
            assert import_tree(b, tree)["ok"]
            assert b.conn.execute("SELECT COUNT(*) FROM timeline_entries").fetchone()[0] == 1
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM timeline_entries").fetchone()[0] == 0
        assert b.conn.execute("SELECT separator FROM pages WHERE slug = 'hidden'").fetchone()[0] == ""
        assert fresh_import_differences(b) == {}


def test_the_resplit_reads_the_pages_in_batches_and_misses_none(db_path, tmp_path, monkeypatch):
    """:func:`resplit_comment_pages` reads the candidate pages' texts 500 at a time by id
    (``db.page_text_batches``: Postgres' cursor holds a whole answer in memory) and still splits
    again each page whose split changes, first batch or last, and no other."""
    from conftest import write_tree
    from gbrain.page import markdown
    from gbrain.storage import db as dbmod

    tree = {f"p{i:04d}.md": f"# P{i}\n\nA %% closed %% here\n\n---\n\n- **2025-01-03** | call {i}\n" for i in range(1203)}
    changed = (3, 499, 500, 501, 1002, 1202)
    for i in changed:
        tree[f"p{i:04d}.md"] = f"# P{i}\n\nA %% opened and never closed\n\n---\n\n- **2025-01-02** | call {i}\n"
    write_tree(tmp_path / "v", tree)
    with monkeypatch.context() as m:
        m.setattr(markdown, "_in_inline_comment", lambda *a: False)  # the rule before
        m.setenv("GBRAIN_PARSE_WORKERS", "0")  # (parsed here, where the rule before is set)
        with Brain.open(db_path, create=True) as b:
            assert import_tree(b, tmp_path / "v")["ok"]
    reads, picked = [], []
    with Brain.open(db_path) as b:
        conn = b.conn

        class Counting:  # counts the rows each read of page texts hands back
            dialect = getattr(conn, "dialect", "sqlite")

            def execute(self, sql, params=()):
                if not (sql.startswith("SELECT") and "frontmatter_raw" in sql):
                    return conn.execute(sql, params)
                rows = conn.execute(sql, params).fetchall()
                reads.append(len(rows))
                return _Rows(rows)

        monkeypatch.setattr(dbmod, "rederive_page_ids", lambda c, ids, **kw: picked.extend(ids) or len(ids))
        with b.transaction():
            assert dbmod.resplit_comment_pages(Counting()) == 6, reads
        slugs_of = dict(conn.execute("SELECT id, slug FROM pages").fetchall())
        assert sorted(slugs_of[i] for i in picked) == [f"p{i:04d}" for i in changed]
        assert [r[0] for r in conn.execute("SELECT slug FROM pages WHERE separator = '' ORDER BY slug")] == [f"p{i:04d}" for i in changed]
    assert max(reads) <= 500 and sum(reads) == 1203, reads


class _Rows(list):
    def fetchall(self):
        return list(self)

    def fetchone(self):
        return self[0] if self else None


def test_the_resplit_parses_a_page_it_splits_again_once(db_path, tmp_path, monkeypatch):
    """A page whose split changes is parsed once: :func:`resplit_comment_pages` hands its parse to
    :func:`rederive_page_ids`, which takes a given parse only where it renders the stored text
    (another text's parse is parsed again: the derived rows are the stored text's)."""
    from gbrain.page import markdown
    from gbrain.storage import db as dbmod
    from gbrain.sync.verify import fresh_import_differences

    tree = tmp_path / "v"
    tree.mkdir()
    (tree / "hidden.md").write_text("# T\n\nA %% opened and never closed\n\n---\n\n- **2025-01-02** | call — [[x]] #t\n")
    (tree / "shown.md").write_text("# S\n\nA %% closed %% here\n\n---\n\n- **2025-01-03** | call — y\n")
    (tree / "x.md").write_text("x\n")
    with monkeypatch.context() as m:
        m.setattr(markdown, "_in_inline_comment", lambda *a: False)  # the rule before
        with Brain.open(db_path, create=True) as b:
            assert import_tree(b, tree)["ok"]
    real = markdown.parse_page
    parsed: list[str] = []
    with Brain.open(db_path) as b:
        with monkeypatch.context() as m:
            m.setattr(markdown, "parse_page", lambda text, path, **kw: parsed.append(path) or real(text, path, **kw))
            with b.transaction():
                assert dbmod.resplit_comment_pages(b.conn) == 1
        assert sorted(parsed) == ["hidden.md", "shown.md"], parsed
        assert fresh_import_differences(b) == {}
        pid, old = b.conn.execute("SELECT id, timeline FROM pages WHERE slug = 'shown'").fetchone()
        other = real("# S\n\nanother text\n\n---\n\n- **2026-01-01** | not this page's\n", "shown.md")
        with b.transaction():
            assert dbmod.rederive_page_ids(b.conn, [pid], parsed={pid: other}) == 1
        assert fresh_import_differences(b) == {} and b.conn.execute("SELECT timeline FROM pages WHERE id = ?", (pid,)).fetchone()[0] == old
