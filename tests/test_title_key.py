"""A title is a name, not a path: ``title: TCP/IP`` is keyed whole (``slugs.title_key``), not by
its last segment. ``[[TCP/IP]]`` finds the page titled "TCP/IP", ``[[IP]]`` does not; two titles
that differ before the ``/`` are no duplicates; search's exact-name evidence, ``get``, saves,
deletes, sync moves and a brain made before (migration v27) agree with a fresh import."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.core.lint import lint
from gbrain.errors import NotFound
from gbrain.page.slugs import loose_key, title_key
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import write_tree

TREE = {
    "net/tcp.md": "---\ntitle: TCP/IP\n---\nThe transport suite.\n",
    "net/udp.md": "---\ntitle: UDP/IP\n---\nDatagrams.\n",
    "j.md": "Read [[TCP/IP]], [[UDP/IP]], [[IP]] and [[tcp ip]].\n",
}


def to(b: Brain, slug: str = "j") -> dict[str, str | None]:
    return dict(b.conn.execute("SELECT l.target, p.slug FROM links l JOIN pages f ON f.id = l.from_page_id "
                               "LEFT JOIN pages p ON p.id = l.to_page_id WHERE f.slug = ?", (slug,)).fetchall())


@pytest.mark.engine_free
@pytest.mark.parametrize("title, key", [("TCP/IP", "tcp-ip"), ("UDP/IP", "udp-ip"), ("Bruno Okafor", "bruno-okafor"),
                                        ("project/Data Platform", "project-data-platform"), ("Notes.md", "notes"), ("/", "")])
def test_a_title_is_keyed_whole(title, key):
    assert title_key(title) == key
    if "/" not in title:
        assert title_key(title) == loose_key(title)  # a title without '/' keeps its key: no other page changes


def test_a_slash_in_a_title_is_part_of_the_name(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "t", TREE))
        assert to(b) == {"TCP/IP": "net/tcp", "UDP/IP": "net/udp", "IP": None, "tcp ip": "net/tcp"}, to(b)
        rep = lint(b, checks=["duplicate_titles"])
        assert rep["items"] == [], rep["items"]
        with pytest.raises(NotFound):
            b.resolve_slug("IP")
        assert b.resolve_slug("TCP/IP")["slug"] == "net/tcp"  # as [[TCP/IP]] resolves
        assert b.resolve_slug("tcp ip")["slug"] == "net/tcp"
        assert fresh_import_differences(b) == {}


def test_titles_equal_but_for_case_and_punctuation_are_still_duplicates(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "t", {"a.md": "---\ntitle: TCP/IP\n---\nA.\n", "b.md": "---\ntitle: tcp-ip\n---\nB.\n"}))
        items = lint(b, checks=["duplicate_titles"])["items"]
        assert [i["pages"] for i in items] == [["a", "b"]], items


def test_a_page_named_ip_is_found_not_the_one_titled_tcp_ip(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "t", TREE))
        b.put("IP", "# IP\nThe internet protocol.\n")
        assert to(b)["IP"] == "IP"
        b.delete_page("IP")
        assert to(b)["IP"] is None
        assert fresh_import_differences(b) == {}


def test_saves_that_give_or_take_a_slash_title_re_resolve_links(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "t", {"j.md": TREE["j.md"]}))
        assert set(to(b).values()) == {None}
        b.put("net/tcp", TREE["net/tcp.md"])  # a new page titled TCP/IP: [[TCP/IP]] and [[tcp ip]] find it
        assert to(b) == {"TCP/IP": "net/tcp", "UDP/IP": None, "IP": None, "tcp ip": "net/tcp"}, to(b)
        assert fresh_import_differences(b) == {}
        b.put("net/tcp", "---\ntitle: UDP/IP\n---\nRetitled.\n")  # the title changes: links follow
        assert to(b) == {"TCP/IP": None, "UDP/IP": "net/tcp", "IP": None, "tcp ip": None}, to(b)
        assert fresh_import_differences(b) == {}
        b.delete_page("net/tcp")
        assert set(to(b).values()) == {None}
        assert fresh_import_differences(b) == {}


def test_search_gives_a_title_with_a_slash_exact_name_evidence_for_the_whole_title(tmp_path, db_path):
    """Known-item evidence (``keyword._exact_names``, both engines): "TCP/IP" (or "tcp ip") names
    the page titled so, "IP" names the page titled IP, not the pages titled TCP/IP or UDP/IP."""
    from gbrain.search.keyword import search

    body = "ip " * 30
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "t", {
            "net/tcp.md": f"---\ntitle: TCP/IP\n---\n{body}\n", "net/udp.md": f"---\ntitle: UDP/IP\n---\n{body}\n",
            "net/proto.md": "---\ntitle: IP\n---\n" + "The protocol of the internet layer, with words about routing. " * 20 + "\n"}))
        hits = search(b.conn, "IP")
        assert hits[0]["slug"] == "net/proto", hits
        assert hits[0]["score"] - max(h["score"] for h in hits[1:]) > 0.5, hits  # the exact name's weight, its alone
        assert search(b.conn, "TCP/IP")[0]["slug"] == "net/tcp"
        assert search(b.conn, "udp ip")[0]["slug"] == "net/udp"


def test_a_moved_page_keeps_its_whole_title_key(tmp_path, db_path):
    from gbrain.sync.engine import SyncEngine

    root = write_tree(tmp_path / "t", TREE)
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            eng.sync()
            (root / "net" / "tcp.md").rename(root / "net" / "tcp-ip.md")
            eng.sync()
        finally:
            eng.close()
        assert b.conn.execute("SELECT title_key FROM pages WHERE slug = 'net/tcp-ip'").fetchone()[0] == "tcp-ip"
        assert to(b) == {"TCP/IP": "net/tcp-ip", "UDP/IP": "net/udp", "IP": None, "tcp ip": "net/tcp-ip"}, to(b)
        assert fresh_import_differences(b) == {}


def test_a_brain_made_before_keys_its_slash_titles_whole_on_open(tmp_path, db_path):
    """A brain made before v27 (Postgres v27) keyed ``TCP/IP`` by ``ip``: on open the titles with
    a ``/`` get their whole key, the links that may change are resolved again, and the brain
    equals a fresh import (the title keys included)."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "t", TREE))
        c = b.conn
        with b.transaction():  # as the old key left them: [[IP]] found TCP/IP, [[tcp ip]] nothing
            c.execute("UPDATE pages SET title_key = 'ip' WHERE slug IN ('net/tcp', 'net/udp')")
            c.execute("UPDATE links SET to_page_id = (SELECT id FROM pages WHERE slug = 'net/tcp') WHERE target = 'IP'")
            c.execute("UPDATE links SET to_page_id = NULL WHERE target = 'tcp ip'")
            _rewind(c, pg._slash_titles, dbmod._m27_whole_titles)
    with Brain.open(db_path) as b:
        keys = dict(b.conn.execute("SELECT slug, title_key FROM pages").fetchall())
        assert keys == {"net/tcp": "tcp-ip", "net/udp": "udp-ip", "j": "j"}, keys
        assert to(b) == {"TCP/IP": "net/tcp", "UDP/IP": "net/udp", "IP": None, "tcp ip": "net/tcp"}, to(b)
        assert fresh_import_differences(b) == {}


def test_fresh_import_differences_sees_a_wrong_title_key(tmp_path, db_path):
    """The comparison with a fresh import covers the page keys links are resolved by."""
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "t", TREE))
        with b.transaction():
            b.conn.execute("UPDATE pages SET title_key = 'x' WHERE slug = 'net/tcp'")
        assert "pages" in fresh_import_differences(b)


def test_an_alias_with_a_slash_keeps_its_last_segment_key(tmp_path, db_path):
    """Aliases are not titles here: a translated vault aliases a page by its original's path
    (Obsidian Help's ``zh/Bases/公式`` says ``aliases: [Bases/Formulas]``); keyed whole, such an
    alias took search's exact-name evidence for "bases formulas" from the English page."""
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "t", {"zh/Bases/公式.md": "---\naliases: [Bases/Formulas]\n---\nx\n",
                                                   "j.md": "[[Formulas]]\n"}))
        assert [tuple(r) for r in b.conn.execute("SELECT alias, loose_key FROM aliases")] == [("Bases/Formulas", "formulas")]
        assert to(b) == {"Formulas": "zh/Bases/公式"}
