"""Links in Obsidian properties (frontmatter values): ``related: "[[Acme Corp]]"``, a list
``people: ["[[Alice]]", "[[Bob|B.]]"]``, ``up: "[[Projects#Q3]]"`` are links (Obsidian 1.4+: they
show in backlinks and the graph, and a rename updates them). gbrain derives them as links of kind
``property`` whose context names the property (``related: [[Acme Corp]]``); backlinks, graph,
links, dead-link lint and the rename relinker see them; an existing brain gets them from a
migration that re-derives only the pages whose frontmatter holds ``[[``. Runs on both engines
(``--engine postgres``)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import gbrain, write_tree

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.page import markdown
from gbrain.page.markdown import parse_page
from gbrain.sync.engine import SyncEngine
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"

NOTE = (
    "---\n"
    "title: Kickoff\n"
    "related: \"[[Acme Corp]]\"\n"
    "people: [\"[[Alice]]\", \"[[Bob|B.]]\"]\n"
    "up: '[[Projects#Q3]]'\n"
    "blocks:\n"
    "  - \"[[Alice#^decision]]\"\n"
    "  - plain text\n"
    "  - 42\n"
    "project:\n"
    "  lead: \"[[Carol]]\"\n"
    "cover: \"[[cover.png]]\"\n"
    "web: \"[Acme](acme.md)\"\n"
    "nested: [[Not A Link]]\n"
    "# a comment [[Nor This]]\n"
    "---\n"
    "Met [[Acme Corp]] today.\n"
)


def _props(page):
    return [(ln.target, ln.text, ln.context, ln.count, ln.forms) for ln in page.links if ln.kind == "property"]


@pytest.mark.engine_free
def test_property_links_are_derived_with_the_body_link_rules():
    p = parse_page(NOTE, "notes/kickoff.md")
    assert p.render() == NOTE
    assert _props(p) == [
        ("Acme Corp", "Acme Corp", "related: [[Acme Corp]]", 1, ["[[Acme Corp]]"]),
        ("Alice", "Alice", "people: [[Alice]]", 2, ["[[Alice]]", "[[Alice#^decision]]"]),
        ("Bob", "B.", "people: [[Bob|B.]]", 1, ["[[Bob]]"]),
        ("Projects", "Projects#Q3", "up: [[Projects#Q3]]", 1, ["[[Projects#Q3]]"]),
        ("Carol", "Carol", "project.lead: [[Carol]]", 1, ["[[Carol]]"]),
    ]
    # the body's link to the same page stays a link of its own kind, after the properties
    assert [(ln.kind, ln.target) for ln in p.links] == [("property", t) for t, *_ in _props(p)] + [("wiki", "Acme Corp")]


@pytest.mark.engine_free
@pytest.mark.parametrize(
    "fm",
    [
        "related: [[Acme]]",  # unquoted: YAML reads a nested list, Obsidian no link
        "web: \"[Acme](acme.md)\"",  # markdown links are no links in properties
        "# comment [[Acme]]",
        "\"[[Acme]]\": key only",
        "related: \"[[img.png]]\"",  # an attachment
        "related: \"[[]]\"",
    ],
)
def test_what_is_no_property_link(fm):
    assert [ln for ln in parse_page(f"---\n{fm}\n---\nx\n").links if ln.kind == "property"] == []


@pytest.mark.engine_free
def test_a_long_value_and_several_links_in_one_value():
    p = parse_page("---\nnote: \"see [[A]] and [[B|bee]] " + "word " * 100 + "\"\n---\n")
    (a, b) = p.links
    assert (a.kind, a.target, b.target, b.text) == ("property", "A", "B", "bee")
    assert a.context.startswith("note: see [[A]] and [[B|bee]] word") and len(a.context) == markdown.CONTEXT_MAX


@pytest.mark.engine_free
def test_yaml_that_does_not_load_gives_no_property_links():
    p = parse_page("---\nrelated: \"[[Acme]]\n: : x\n---\nbody\n")
    assert p.frontmatter_error and p.links == []


@pytest.mark.engine_free
def test_both_parse_paths_agree(monkeypatch):
    fast = parse_page(NOTE, "notes/kickoff.md")
    monkeypatch.setattr(markdown, "_FAST", False)
    slow = parse_page(NOTE, "notes/kickoff.md")
    assert [(ln.kind, ln.target, ln.context, ln.count, ln.forms) for ln in fast.links] == [
        (ln.kind, ln.target, ln.context, ln.count, ln.forms) for ln in slow.links]


VAULT = {
    "Acme Corp.md": "# Acme Corp\n",
    "people/Alice.md": "# Alice\n",
    "people/Bob.md": "# Bob\n",
    "Projects.md": "# Projects\n\n## Q3\n",
    "notes/kickoff.md": NOTE,
    "notes/other.md": "---\nrelated: \"[[Ghost Page]]\"\n---\nNo body links.\n",
}


def test_backlinks_links_graph_and_dead_links_see_property_links(tmp_path, db_path):
    tree = write_tree(tmp_path / "v", VAULT)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        assert fresh_import_differences(b) == {}
    out = json.loads(gbrain("--db", str(db_path), "backlinks", "people/Alice", "--json").stdout)
    assert [(x["slug"], x["context"], x["count"]) for x in out] == [("notes/kickoff", "people: [[Alice]]", 2)]
    with Brain.open(db_path) as b:
        # a page linked from the frontmatter and the body: listed once, both counted
        out = ops.run("backlinks", {"slug": "Acme Corp"}, brain=b)
        assert [(x["slug"], x["count"], x["context"]) for x in out] == [("notes/kickoff", 2, "related: [[Acme Corp]]")]
        links = ops.run("links", {"slug": "notes/kickoff"}, brain=b)
        kinds = {x["to_slug"] or x["target"]: x["kind"] for x in links}
        assert kinds == {"Acme Corp": "property", "people/Alice": "property", "people/Bob": "property", "Projects": "property", "Carol": "property"}
        g = ops.run("graph", {"slug": "people/Bob", "depth": 1}, brain=b)
        assert "notes/kickoff" in json.dumps(g)
        lint = ops.run("lint", {"check": "dead_links", "limit": 0}, brain=b)
        dead = {(f["slug"], f["target"], f["kind"]) for f in lint["items"]}
        assert dead == {("notes/kickoff", "Carol", "property"), ("notes/other", "Ghost Page", "property")}
        # the text says which property holds the link (a page linking a name from a property and
        # from its text has two findings, told apart)
        msgs = {f["target"]: f["message"] for f in lint["items"]}
        assert msgs["Carol"].startswith("links in its `project.lead` property to 'Carol'"), msgs
        assert msgs["Ghost Page"].startswith("links in its `related` property to 'Ghost Page'"), msgs


def test_a_property_link_resolves_when_its_page_appears(tmp_path, db_path):
    tree = write_tree(tmp_path / "v", VAULT)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        b.put("Ghost Page", "# Ghost\n")
        assert [x["slug"] for x in b.backlinks("Ghost Page")] == ["notes/other"]
        assert fresh_import_differences(b) == {}


# ---- the rename relinker rewrites the frontmatter text in place -----------------------------

FM_NOTE = (
    "---\n"
    "title: Ana   # keep this comment\n"
    "related: \"[[acme]]\"\n"
    "people:\n"
    "    - '[[acme|The Co]]'\n"
    "    - \"[[bob]]\"\n"
    "up: [\"[[acme#Funding]]\", x]\n"
    "---\n"
    "Body [[acme]] too.\n"
)
FM_FIXED = FM_NOTE.replace("[[acme", "[[acme-corp")


def test_fix_safe_rewrites_frontmatter_links_in_place(tmp_path, db_path):
    root = tmp_path / "v"
    write_tree(root, {"companies/acme.md": "# The Acme Company\n\n## Funding\n", "people/bob.md": "# Bob\n", "people/ana.md": FM_NOTE})
    b = Brain.open(db_path, create=True)
    eng = SyncEngine(b, root)
    try:
        eng.bind()
        assert eng.sync()["ok"]
        (root / "companies/acme.md").rename(root / "companies/acme-corp.md")
        assert eng.sync()["counts"]["moved"] == 1
        plain = ops.run("lint", {"check": "dead_links", "limit": 0}, brain=b)
        props = [f for f in plain["items"] if f["kind"] == "property"]
        assert props and all(f["moved_to"] == "companies/acme-corp" for f in props)
        r = ops.run("lint", {"check": "dead_links", "fix_safe": True, "limit": 0}, brain=b)
        assert b.get_text("people/ana") == FM_FIXED
        assert r["skipped"] == [] and r["items"] == []
        pairs = {(x["from"], x["to"]) for x in r["fixed"][0]["links"]}
        assert ("[[acme|The Co]]", "[[acme-corp|The Co]]") in pairs and ("[[acme#Funding]]", "[[acme-corp#Funding]]") in pairs
        assert [(x["slug"], x["count"]) for x in b.backlinks("companies/acme-corp")] == [("people/ana", 4)]
        assert fresh_import_differences(b) == {}
        eng.sync()
        assert (root / "people/ana.md").read_bytes() == FM_FIXED.encode()
    finally:
        eng.close()
        b.close()


@pytest.mark.parametrize(
    "fm, why",
    [
        ("related: \"[[acme]]\" # [[acme]]", "a comment after the value holds the name too"),
        ("related: \"[[ac\\u006De]]\"", "an escape in the value: the text does not spell the target"),
    ],
)
def test_frontmatter_the_scan_cannot_place_is_left_and_reported(tmp_path, db_path, fm, why):
    root = tmp_path / "v"
    note = f"---\n{fm}\n---\nBody.\n"
    write_tree(root, {"companies/acme.md": "# The Acme Company\n", "people/ana.md": note})
    b = Brain.open(db_path, create=True)
    eng = SyncEngine(b, root)
    try:
        eng.bind()
        assert eng.sync()["ok"]
        (root / "companies/acme.md").rename(root / "companies/acme-corp.md")
        eng.sync()
        r = ops.run("lint", {"check": "dead_links", "fix_safe": True, "limit": 0}, brain=b)
        assert b.get_text("people/ana") == note, why
        assert any(s["slug"] == "people/ana" for s in r["skipped"])
    finally:
        eng.close()
        b.close()


def test_a_new_name_yaml_cannot_hold_there_is_left(tmp_path, db_path):
    """A name with a quote character in a double-quoted value: the splice would change the YAML,
    the check sees it and leaves the property link (the body's link is rewritten)."""
    root = tmp_path / "v"
    note = "---\nrelated: \"[[acme]]\"\n---\nBody [[acme]].\n"
    write_tree(root, {"companies/acme.md": "# The Acme Company\n", "people/ana.md": note})
    b = Brain.open(db_path, create=True)
    eng = SyncEngine(b, root)
    try:
        eng.bind()
        assert eng.sync()["ok"]
        (root / "companies/acme.md").rename(root / 'companies/say "hi".md')
        eng.sync()
        r = ops.run("lint", {"check": "dead_links", "fix_safe": True, "limit": 0}, brain=b)
        # the body's link is rewritten, the property's left as written (and said so)
        assert b.get_text("people/ana") == note.replace("Body [[acme]]", 'Body [[say "hi"]]')
        assert any(s["slug"] == "people/ana" and "properties" in s["reason"] for s in r["skipped"])
        assert [f["kind"] for f in r["items"]] == ["property"]
        assert fresh_import_differences(b) == {}
    finally:
        eng.close()
        b.close()


def test_unlink_turns_a_property_link_into_its_text(tmp_path, db_path):
    tree = write_tree(tmp_path / "v", VAULT)
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        b.unlink("notes/kickoff", "people/Bob")
        assert b.get_text("notes/kickoff") == NOTE.replace('"[[Bob|B.]]"', '"B."')
        assert b.backlinks("people/Bob") == []
        assert fresh_import_differences(b) == {}


# ---- an existing brain: the migration re-derives the pages whose frontmatter holds [[ ----------


def test_upgrade_derives_property_links_of_an_existing_brain(tmp_path, db_path):
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    tree = write_tree(tmp_path / "v", {**VAULT, "notes/plain.md": "---\ntitle: Plain\n---\n[[Acme Corp]]\n"})
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        c = b.conn
        with b.transaction():  # the rows the code before property links stored
            c.execute("DELETE FROM links WHERE kind = 'property'")
            c.execute("UPDATE pages SET title = 'untouched' WHERE slug = 'notes/plain'")  # not re-parsed
            if getattr(c, "dialect", "sqlite") == "postgres":
                step = next(v for v, f in pg._PY_STEPS.items() if f is pg._property_links)
                c.execute("DELETE FROM gbrain_schema WHERE version >= %d" % step)
            else:
                c.execute(f"PRAGMA user_version = {dbmod.MIGRATIONS.index(dbmod._m19_property_links)}")
        assert b.backlinks("people/Alice") == []
    with Brain.open(db_path) as b:
        assert [x["slug"] for x in b.backlinks("people/Alice")] == ["notes/kickoff"]
        assert [x["slug"] for x in b.backlinks("notes/kickoff")] == []
        diff = fresh_import_differences(b)
        # only the page left stale on purpose differs (on Postgres its search vectors too, from that title, and so the totals)
        on_pg = getattr(b.conn, "dialect", "sqlite") == "postgres"
        assert set(diff) == {"pages"} | ({"pg_pages", "pg_totals"} if on_pg else set()), diff
        assert {r[0] for k in ("pages", "pg_pages") if k in diff for rows in diff[k].values() for r in rows} == {"notes/plain"}, diff
        with b.transaction():
            b.conn.execute("UPDATE pages SET title = 'Plain' WHERE slug = 'notes/plain'")
            assert dbmod.rederive_property_link_pages(b.conn) == 2
        assert fresh_import_differences(b) == {}


# ---- real corpora ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_corpus_property_links():
    """obsidian-help: three translated Templates pages link the core plugins page from their
    ``description:`` property (the Properties help pages show property links only inside code
    blocks: no links); obsidian-hub's daily-log template writes ``week: "[[<% … %>]]"`` in
    YAML that does not load (quotes inside quotes): no links."""
    help_ = CORPORA / "obsidian-help"
    if not help_.is_dir():
        pytest.skip("corpora not available")
    found = {}
    for f in sorted(help_.rglob("*.md")):
        text = f.read_bytes().decode("utf-8")
        if "[[" in text.split("\n---", 1)[0]:
            p = parse_page(text, str(f.relative_to(help_)))
            assert p.render() == text
            found.update({str(f.relative_to(help_)): [(ln.target, ln.context.split(":", 1)[0]) for ln in p.links if ln.kind == "property"]})
    found = {k: v for k, v in found.items() if v}
    assert found == {"ja/プラグイン/テンプレート.md": [("コアプラグイン", "description")],
                     "ru/Плагины/Шаблоны.md": [("Основные плагины", "description")],
                     "zh/插件/模板.md": [("核心插件", "description")]}
    note = CORPORA / "obsidian-hub/03 - Showcases & Templates/Templates/Daily notes/T - Thecookiemomma's Daily Log.md"
    if note.is_file():
        p = parse_page(note.read_text("utf-8"), "x.md")
        assert p.frontmatter_error and [ln for ln in p.links if ln.kind == "property"] == []
