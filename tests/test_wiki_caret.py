"""A wiki link splits at its first `#` only, as Obsidian's parseLinktext does (trial 31): `[[x^y]]`
names the note `x^y`, `[[Target^blk]]` a note `Target^blk` (no such: dangling), and a block
reference is `[[Note#^id]]`, unchanged."""
from __future__ import annotations

from conftest import gbrain_in_process
from test_obsidian import write
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree

VAULT = {
    "notes/x^y.md": "A note with a caret in its name.\n",
    "notes/Target.md": "Target text. ^blk\n",
    "notes/linker.md": "See [[x^y]], [[Target^blk]], [[Target#^blk]] and ![[x^y|shown]].\n",
}


def _links(b) -> dict:
    return {r[0]: r[1] for r in b.conn.execute("SELECT l.target, p.slug FROM links l LEFT JOIN pages p ON p.id = l.to_page_id "
                                                 "JOIN pages f ON f.id = l.from_page_id WHERE f.slug = 'notes/linker'")}


def test_a_wiki_link_splits_at_the_first_hash_only(tmp_path, db_path):
    tree = write(tmp_path / "v", VAULT)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert _links(b) == {"x^y": "notes/x^y", "Target^blk": None, "Target": "notes/Target"}
        assert {x["slug"] for x in b.backlinks("notes/x^y")} == {"notes/linker"}
    r = gbrain_in_process("--db", str(db_path), "unlink", "notes/linker", "notes/x^y")
    assert r.returncode == 0, r
    # the link unlinked whole (before: `[[x^y]]` was a link to `x`, no link to `notes/x^y`); embeds stay
    assert gbrain_in_process("--db", str(db_path), "get", "notes/linker").stdout.decode().startswith("See x^y, [[Target^blk]], [[Target#^blk]] and ![[x^y|shown]]")


def test_an_upgraded_brain_reads_a_caret_in_a_wiki_link_as_part_of_the_name(tmp_path, db_path):
    """A brain made before (SQLite v43 / Postgres v45) read `[[x^y]]` as `x` + a block: on open the
    pages holding such a link are derived again, equal to a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.verify import fresh_import_differences

    tree = write(tmp_path / "v", VAULT)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        with b.transaction():
            c.execute("UPDATE links SET target = 'x', target_name = 'x', to_page_id = NULL WHERE target = 'x^y'")
            _rewind(c, pg._caret_links, dbmod._m44_caret_links)
    with Brain.open(db_path) as b:
        assert _links(b) == {"x^y": "notes/x^y", "Target^blk": None, "Target": "notes/Target"}
        assert fresh_import_differences(b) == {}
