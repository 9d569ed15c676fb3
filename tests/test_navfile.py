"""Docs trees keep their navigation in a nav file: DocFX / Microsoft Learn ``TOC.yml`` (``href:``
relative to the TOC), Jupyter Book ``_toc.yml`` (``file:`` relative to the book root, no
extension needed) and MkDocs ``mkdocs.yml`` ``nav:`` (relative to ``docs_dir``, default
``docs``). gbrain keeps such a file as a stored file, byte for byte, and stores its entries at its
save (``nav_entries``, v61), resolved when read (``Brain.nav_links``): ``backlinks PAGE`` lists the nav
file with the entry's section path as context, lint's ``orphans`` spares a page only the nav
lists, ``links TOC.yml`` lists its entries. A nav file that does not load is a warning, never a
failure, and is kept as it is."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.core.lint import _orphans
from gbrain.page.navfile import is_nav_file, nav_entries

from conftest import gbrain_in_process

TOC = b"""\
- name: Identity
  href: index.md
  items:
  - name: AD DS
    items:
    - name: Plan
      href: ad-ds/plan/Plan.md
      items:
      - name: Forest design
        href: ad-ds/plan/forest-Design.md#BKMK_1
    - name: Elsewhere
      href: ../get-started/whats-new.md
    - name: Landing
      href: Identity-and-Access.yml
    - name: Learn
      href: https://learn.microsoft.com/x
    - name: Sub TOC
      href: laps/toc.yml
    - name: Gone
      href: ad-ds/gone.md
"""

JB_TOC = b"""\
format: jb-book
root: intro
parts:
  - caption: Basics
    chapters:
    - file: chapters/one
      sections:
      - file: chapters/one-a.md
    - url: https://jupyterbook.org
    - file: notebooks/nb.ipynb
"""

MKDOCS = b"""\
site_name: Demo
docs_dir: site-src
theme:
  name: material
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
extra:
  analytics: !ENV [GA, none]
nav:
  - index.md
  - User guide:
    - Install: guide/install.md
    - guide/usage.md
  - External: https://example.com/
"""


def _pages(b: Brain, *slugs: str) -> None:
    for s in slugs:
        b.put(s, f"# {s.rsplit('/', 1)[-1]}\n\nText.\n")


@pytest.mark.engine_free
def test_is_nav_file():
    for p in ("TOC.yml", "docs/toc.yml", "a/b/toc.yaml", "book/_toc.yml", "mkdocs.yml", "x/mkdocs.yaml"):
        assert is_nav_file(p), p
    for p in ("index.yml", "toc.md", "a/mytoc.yml", "mkdocs.yml.bak", "TOC.yml/x.md"):
        assert not is_nav_file(p), p


@pytest.mark.engine_free
def test_docfx_entries_keep_their_section_path():
    base, entries, warning = nav_entries(TOC, "identity/TOC.yml")
    assert warning is None and base == "identity"
    got = [(e.href, e.target, " › ".join(e.section)) for e in entries]
    assert got == [
        ("index.md", "index", "Identity"),
        ("ad-ds/plan/Plan.md", "ad-ds/plan/Plan", "Identity › AD DS › Plan"),
        ("ad-ds/plan/forest-Design.md#BKMK_1", "ad-ds/plan/forest-Design", "Identity › AD DS › Plan › Forest design"),
        ("../get-started/whats-new.md", "../get-started/whats-new", "Identity › AD DS › Elsewhere"),
        ("ad-ds/gone.md", "ad-ds/gone", "Identity › AD DS › Gone"),
    ]
    assert [e.form for e in entries][:1] == ["href: index.md"]


@pytest.mark.engine_free
def test_jupyter_book_and_mkdocs_entries():
    base, entries, warning = nav_entries(JB_TOC, "book/_toc.yml")
    assert warning is None and base == "book"
    assert [(e.target, e.section) for e in entries] == [
        ("intro", ("intro",)), ("chapters/one", ("Basics", "chapters/one")), ("chapters/one-a", ("Basics", "chapters/one", "chapters/one-a.md"))]
    base, entries, warning = nav_entries(MKDOCS, "site/mkdocs.yml")
    assert warning is None and base == "site/site-src"  # docs_dir, relative to mkdocs.yml's folder
    assert [(e.target, e.section, e.form) for e in entries] == [
        ("index", ("index.md",), "index.md"),
        ("guide/install", ("User guide", "Install"), "Install: guide/install.md"),
        ("guide/usage", ("User guide", "guide/usage.md"), "guide/usage.md"),
    ]
    assert nav_entries(b"site_name: x\nnav:\n  - a.md\n", "mkdocs.yml")[0] == "docs"  # the default docs_dir


@pytest.mark.engine_free
def test_a_malformed_nav_file_is_a_warning_and_no_entries():
    for data in (b"- name: x\n  href: [unclosed\n", b"\xff\xfe not utf-8", b"just a string\n",
                 b"- &a [*a]\n", b"[" * 300 + b"]" * 300, b"a: &x [1]\nb: *x\n---\nsecond: doc\n"):
        base, entries, warning = nav_entries(data, "docs/TOC.yml")
        assert entries == [] and warning, data
    assert nav_entries(b"", "TOC.yml")[1:] == ([], None)  # an empty TOC: nothing to say
    assert nav_entries(b"site_name: x\n", "mkdocs.yml")[1:] == ([], None)  # no nav: key


def test_backlinks_list_the_toc_with_its_section(db_path):
    with Brain.open(db_path, create=True) as b:
        _pages(b, "identity/index", "identity/ad-ds/plan/Plan", "identity/ad-ds/plan/Forest-Design", "get-started/whats-new", "Lonely")
        assert b.save_file("identity/TOC.yml", TOC) == []
        got = b.backlinks("identity/ad-ds/plan/Forest-Design")  # the TOC writes another case: found as a markdown link is
        assert got == [{"slug": "identity/TOC.yml", "title": "TOC.yml", "type": "nav", "context": "Identity › AD DS › Plan › Forest design",
                        "count": 1, "forms": ["href: ad-ds/plan/forest-Design.md#BKMK_1"]}]
        assert [x["slug"] for x in b.backlinks("get-started/whats-new")] == ["identity/TOC.yml"]
        assert [(x["to_slug"], x["kind"]) for x in b.nav_links("identity/TOC.yml")] == [
            ("identity/index", "nav"), ("identity/ad-ds/plan/Plan", "nav"), ("identity/ad-ds/plan/Forest-Design", "nav"),
            ("get-started/whats-new", "nav"), (None, "nav")]
        assert [o["slug"] for o in _orphans(b)] == ["Lonely"]


def test_mkdocs_nav_is_relative_to_docs_dir(db_path):
    with Brain.open(db_path, create=True) as b:
        _pages(b, "site/site-src/index", "site/site-src/guide/install", "site/site-src/guide/usage", "site/guide/usage")
        b.save_file("site/mkdocs.yml", MKDOCS)
        assert [x["to_slug"] for x in b.nav_links("site/mkdocs.yml")] == ["site/site-src/index", "site/site-src/guide/install", "site/site-src/guide/usage"]
        assert [o["slug"] for o in _orphans(b)] == ["site/guide/usage"]


def test_nav_links_follow_a_move_and_an_edit(db_path):
    """No link is stored: a page moved away leaves its entry dangling as a markdown link's, a page
    coming to the entry's path is reached at once, an edited TOC moves its backlinks."""
    with Brain.open(db_path, create=True) as b:
        _pages(b, "identity/ad-ds/gone")
        b.save_file("identity/TOC.yml", TOC)
        assert [x["slug"] for x in b.backlinks("identity/ad-ds/gone")] == ["identity/TOC.yml"]
        b.delete_page("identity/ad-ds/gone")
        _pages(b, "identity/ad-ds/elsewhere")
        assert "identity/ad-ds/elsewhere" in [o["slug"] for o in _orphans(b)]
        b.save_file("identity/TOC.yml", TOC.replace(b"ad-ds/gone.md", b"ad-ds/elsewhere.md"))
        assert [x["slug"] for x in b.backlinks("identity/ad-ds/elsewhere")] == ["identity/TOC.yml"]
        assert _orphans(b) == []


def test_a_malformed_toc_imports_with_a_warning_and_comes_back_exact(tmp_path, db_path):
    tree = tmp_path / "docs"
    (tree / "a").mkdir(parents=True)
    (tree / "a" / "page.md").write_bytes(b"# Page\r\n")
    bad = b"- name: x\r\n  href: [unclosed\r\n"
    (tree / "a" / "TOC.yml").write_bytes(bad)
    (tree / "mkdocs.yml").write_bytes(b"nav:\n  - a/page.md\n")
    r = gbrain_in_process("import", str(tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    assert b"a/TOC.yml" in r.stderr and b"does not load" in r.stderr
    out = tmp_path / "out"
    r = gbrain_in_process("export", str(out), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    assert (out / "a" / "TOC.yml").read_bytes() == bad and (out / "mkdocs.yml").read_bytes() == b"nav:\n  - a/page.md\n"
    r = gbrain_in_process("backlinks", "a/page", "--db", str(db_path), "--json")
    assert r.returncode == 0 and b'"slug": "docs/mkdocs.yml"' not in r.stdout  # mkdocs.yml at the top: docs_dir docs/ holds no a/page
    r = gbrain_in_process("links", "a/TOC.yml", "--db", str(db_path), "--json")
    assert r.returncode == 0 and r.stdout.strip() == b"[]", (r.stdout, r.stderr)


def test_links_and_backlinks_cli(db_path):
    with Brain.open(db_path, create=True) as b:
        _pages(b, "identity/index")
        b.save_file("identity/TOC.yml", TOC)
    r = gbrain_in_process("backlinks", "identity/index", "--db", str(db_path))
    assert r.returncode == 0 and r.stdout.decode().startswith("identity/TOC.yml  x1 href: index.md  Identity"), r.stdout
    r = gbrain_in_process("links", "identity/TOC.yml", "--db", str(db_path), "--json")
    assert r.returncode == 0 and b'"to_slug": "identity/index"' in r.stdout, (r.stdout, r.stderr)


def test_backlinks_parse_no_nav_file(db_path, monkeypatch):
    """A docs repo holds hundreds of TOCs: a nav file's entries are stored at its save
    (``nav_entries``, SQLite v61 / Postgres v65), so ``backlinks`` of a page, lint's orphans and
    ``graph`` parse none (a CLI ``backlinks`` of a page 300 TOCs list parsed all 300: 436 ms);
    a name of other characters (``Foo Bar``, written ``Foo%20Bar.md``) is found alike."""
    import gbrain.core.brain as brain_mod
    from gbrain import operations as ops
    from gbrain.page import navfile

    with Brain.open(db_path, create=True) as b:
        _pages(b, "docs/Site-Functions", "docs/Foo Bar")
        b.save_file("docs/TOC.yml", b"- name: Site\n  href: site-functions.md\n- name: Foo\n  href: Foo%20Bar.md\n")
        for i in range(5):
            b.save_file(f"other{i}/TOC.yml", b"- name: X\n  href: x.md\n")
        parsed = []
        real = navfile.load_nav
        monkeypatch.setattr(navfile, "load_nav", lambda data: parsed.append(data) or real(data))
        brain_mod._NAV_PARSED.clear()
        navfile._PARSED.clear()
        assert [x["slug"] for x in b.backlinks("docs/Site-Functions")] == ["docs/TOC.yml"]
        assert [x["slug"] for x in b.backlinks("docs/Foo Bar")] == ["docs/TOC.yml"]
        assert _orphans(b) == []
        assert [x["to_slug"] for x in b.nav_links("docs/TOC.yml")] == ["docs/Site-Functions", "docs/Foo Bar"]
        assert [n["slug"] for n in ops.run("graph", {"slug": "docs/Foo Bar", "depth": 2}, ops.Context(db=str(db_path)), brain=b)["nodes"]] == [
            "docs/Foo Bar", "docs/TOC.yml", "docs/Site-Functions"]
        assert parsed == []


def test_a_nav_file_over_nav_max_bytes_is_never_parsed(db_path, monkeypatch):
    """A generated 4 MB TOC.yml cost 7 CPU-s per parse (25 s when its YAML does not load), paid by
    every process's first ``backlinks`` of a page it names: a nav file over ``NAV_MAX_BYTES`` is
    read as listing no page, said at its save, and never parsed again (nor its bytes read by
    ``backlinks``); one at the bound is read as before."""
    import gbrain.core.brain as brain_mod
    from gbrain.page import navfile

    big = b"- name: Index\n  href: index.md\n" + b"- name: Other\n  href: other.md\n" * 20
    monkeypatch.setattr(navfile, "NAV_MAX_BYTES", len(big) - 1)
    with Brain.open(db_path, create=True) as b:
        _pages(b, "docs/index", "small/index")
        (warning,) = b.save_file("docs/TOC.yml", big)
        assert "nav file not read" in warning and "NAV_MAX_BYTES" in warning, warning
        assert b.save_file("small/TOC.yml", b"- name: Index\n  href: index.md\n") == []
        parsed, read = [], []
        real_load, real_bytes = navfile.load_nav, brain_mod.blobs.file_bytes
        monkeypatch.setattr(navfile, "load_nav", lambda data: parsed.append(len(data)) or real_load(data))
        monkeypatch.setattr(brain_mod.blobs, "file_bytes", lambda conn, path: read.append(path) or real_bytes(conn, path))
        brain_mod._NAV_PARSED.clear()
        assert b.backlinks("docs/index") == [] and b.nav_links("docs/TOC.yml") == []
        assert [x["slug"] for x in b.backlinks("small/index")] == ["small/TOC.yml"]
        assert [o["slug"] for o in _orphans(b)] == ["docs/index"]
        assert len(big) not in parsed and "docs/TOC.yml" not in read, (parsed, read)
        monkeypatch.setattr(navfile, "NAV_MAX_BYTES", len(big))  # at the bound: parsed as before (its rows written again)
        from gbrain.storage.db import fill_nav_entries

        with b.transaction():
            fill_nav_entries(b.conn)
        assert [x["slug"] for x in b.backlinks("docs/index")] == ["docs/TOC.yml"]
        assert nav_entries(big, "docs/TOC.yml")[2] is None


def test_lint_reports_a_dead_nav_entry_with_its_line_and_a_fix(db_path):
    """A TOC entry naming no page is a ``dead_nav_entries`` finding (default lint): the nav file,
    the entry as written, its line and section, the page path it names, and what to do (gbrain
    never rewrites a nav file). An entry above the brain's top names nothing the brain could hold:
    spared; an entry naming a stored non-page file too."""
    from gbrain.core.lint import lint

    toc = TOC + b"    - name: Above\n      href: ../../outside.md\n    - name: Data\n      href: notes.markdown\n"
    with Brain.open(db_path, create=True) as b:
        _pages(b, "identity/index", "identity/ad-ds/plan/Plan", "identity/ad-ds/plan/Forest-Design")
        b.save_file("identity/notes.markdown", b"kept as a file\n")
        b.save_file("identity/TOC.yml", toc)
        r = lint(b)
        assert "dead_nav_entries" in r["checks"]
        got = [x for x in r["items"] if x["check"] == "dead_nav_entries"]
        assert [(x["slug"], x["target"], x["missing_slug"], x["line"], x["context"]) for x in got] == [
            ("identity/TOC.yml", "../get-started/whats-new.md", "get-started/whats-new", 12, "Identity › AD DS › Elsewhere"),
            ("identity/TOC.yml", "ad-ds/gone.md", "identity/ad-ds/gone", 20, "Identity › AD DS › Gone")]
        assert "line 20" in got[1]["message"] and "no page" in got[1]["message"]
        assert "`gbrain put identity/ad-ds/gone --compiled-truth ...`" in got[1]["action"] and "identity/TOC.yml" in got[1]["action"]
        assert r["counts"]["dead_nav_entries"] == 2
        _pages(b, "identity/ad-ds/gone")  # a page created at the entry's path: no longer dead
        assert [x["target"] for x in lint(b, checks=["dead_nav_entries"])["items"]] == ["../get-started/whats-new.md"]


def test_a_dead_nav_entry_of_a_moved_page_names_its_new_place(tmp_path, db_path):
    import json

    tree = tmp_path / "docs"
    (tree / "guide").mkdir(parents=True)
    (tree / "guide" / "install.md").write_text("# Install\n")
    (tree / "mkdocs.yml").write_bytes(b"site_name: x\ndocs_dir: .\nnav:\n  - Home: guide/install.md\n")
    assert gbrain_in_process("import", str(tree), "--db", str(db_path)).returncode == 0
    (tree / "guide" / "install.md").rename(tree / "guide" / "setup.md")
    assert gbrain_in_process("sync", str(tree), "--db", str(db_path)).returncode == 0
    r = gbrain_in_process("lint", "--check", "dead_nav_entries", "--json", "--db", str(db_path))
    (f,) = json.loads(r.stdout)["items"]
    assert (f["slug"], f["target"], f["line"], f["suggestions"]) == ("mkdocs.yml", "guide/install.md", 4, ["guide/setup"]), f
    assert "guide/setup" in f["message"] and "guide/setup.md" in f["action"]


def test_an_mkdocs_yml_without_nav_reaches_every_page_under_docs_dir(db_path):
    """MkDocs without ``nav:`` lists every page under ``docs_dir`` in its navigation: none of them is
    an orphan; a page outside docs_dir still is, and so is one under a docs_dir an mkdocs.yml with a
    ``nav:`` leaves out (MkDocs warns about it)."""
    with Brain.open(db_path, create=True) as b:
        _pages(b, "site/docs/index", "site/docs/guide/deep", "site/README", "other/src/a", "other/src/b")
        b.save_file("site/mkdocs.yml", b"site_name: x\ntheme: material\n")
        b.save_file("other/mkdocs.yml", b"site_name: y\ndocs_dir: src\nnav:\n  - a.md\n")
        assert [o["slug"] for o in _orphans(b)] == ["other/src/b", "site/README"]
        assert b.backlinks("site/docs/index") == []  # no entry names it: no backlink
        b.save_file("site/mkdocs.yml", b"site_name: x\nnav:\n  - index.md\n")
        assert [o["slug"] for o in _orphans(b)] == ["other/src/b", "site/README", "site/docs/guide/deep"]


def test_graph_and_path_follow_nav_and_canvas_links(db_path):
    """``graph`` and ``path`` walk a nav file's entries and a canvas's nodes as ``backlinks`` lists
    them: the file is a node (its path, type ``nav``/``canvas``), linking to each page it names."""
    import json

    from gbrain import operations as ops

    with Brain.open(db_path, create=True) as b:
        _pages(b, "identity/index", "identity/ad-ds/plan/Plan", "Notes/Alone", "Notes/Other")
        b.save_file("identity/TOC.yml", TOC)
        b.save_file("Board.canvas", json.dumps({"nodes": [{"id": "a", "type": "file", "file": "identity/index.md"},
                                                          {"id": "b", "type": "text", "text": "see [[Alone]]"}]}).encode())
    ctx = ops.Context(db=str(db_path))
    r = ops.run("graph", {"slug": "identity/ad-ds/plan/Plan", "depth": 1}, ctx)
    assert [(n["slug"], n["type"], n["distance"]) for n in r["nodes"]] == [
        ("identity/ad-ds/plan/Plan", "note", 0), ("identity/TOC.yml", "nav", 1)]
    assert [(e["from"], e["to"], e["kind"], e["context"]) for e in r["edges"]] == [
        ("identity/TOC.yml", "identity/ad-ds/plan/Plan", "nav", "Identity › AD DS › Plan")]
    r = ops.run("graph", {"slug": "identity/ad-ds/plan/Plan", "depth": 3}, ctx)
    assert [(n["slug"], n["distance"]) for n in r["nodes"]] == [
        ("identity/ad-ds/plan/Plan", 0), ("identity/TOC.yml", 1), ("identity/index", 2), ("Board.canvas", 3)]
    r = ops.run("graph", {"slug": "identity/TOC.yml", "depth": 1, "direction": "out"}, ctx)
    assert [n["slug"] for n in r["nodes"]] == ["identity/TOC.yml", "identity/ad-ds/plan/Plan", "identity/index"]
    assert ops.run("graph", {"slug": "identity/index", "depth": 1, "direction": "out"}, ctx)["nodes"][1:] == []
    r = ops.run("path", {"from": "identity/ad-ds/plan/Plan", "to": "Notes/Alone"}, ctx)
    assert [p["slug"] for p in r["path"]] == ["identity/ad-ds/plan/Plan", "identity/TOC.yml", "identity/index", "Board.canvas", "Notes/Alone"]
    assert [(x["kind"], x["forward"]) for x in r["links"]] == [("nav", False), ("nav", True), ("file", False), ("wiki", True)]
    assert ops.run("path", {"from": "identity/index", "to": "Notes/Other"}, ctx)["found"] is False


@pytest.mark.engine_free
def test_entry_lines_find_each_href_whole_and_in_order():
    from gbrain.page.navfile import entry_lines

    text = "- name: a\n  href: a.md\n- name: b\n  href: \"data.md\"\n- name: c\n  href: a.md\n- name: d\n  href: 'x%20y.md'\n"
    assert entry_lines(text, ["a.md", "data.md", "a.md", "x%20y.md", "ta.md"]) == [2, 4, 6, 8, None]
    _base, entries, _w = nav_entries(MKDOCS, "site/mkdocs.yml")
    assert entry_lines(MKDOCS.decode(), [e.href for e in entries]) == [11, 13, 14]


def _big_toc(sections: int) -> bytes:
    out = []
    for i in range(sections):
        out.append(f"- name: Section {i}\n  href: sec{i}/index.md\n  items:\n")
        out += [f"  - name: Topic {i}.{j}\n    href: sec{i}/topic-{j}.md\n" for j in range(5)]
    return "".join(out).encode()


def _count_loads(monkeypatch) -> tuple[list[tuple[bool, int]], list[int]]:
    """Each YAML load the nav reader starts: (pure, characters); and the tokens the pure-Python
    scanner read (a list of one count: what the pure loader's work is proportional to)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.scanner import Scanner

    seen: list[tuple[bool, int]] = []
    tokens = [0]
    real, real_fetch = YAML.load, Scanner.fetch_more_tokens

    def load(self, stream):
        seen.append((bool(self.pure), len(stream)))
        return real(self, stream)

    def fetch(self):
        tokens[0] += 1
        return real_fetch(self)

    monkeypatch.setattr(YAML, "load", load)
    monkeypatch.setattr(Scanner, "fetch_more_tokens", fetch)
    return seen, tokens


@pytest.mark.engine_free
def test_a_broken_toc_costs_one_whole_parse_and_is_read_once_per_content(monkeypatch):
    """A nav file whose YAML does not load was parsed whole by the C loader, then whole again by
    the pure-Python one (which reads a few things libyaml refuses): a 1 MB TOC broken at its end
    cost ~4.3 CPU-s instead of ~0.7, and again at each read (its save's warning, then each
    process's backlinks/lint). The pure loader now reads only the entries around the C loader's
    error (the entries before it at each level dropped); it reads the whole text only when that
    part loads (a construct only libyaml refuses), and a text's result is kept per content."""
    from gbrain.page import navfile

    good = _big_toc(300)
    navfile._PARSED.clear()
    seen, tokens = _count_loads(monkeypatch)
    assert navfile.load_nav(good)[1] is None and seen == [(False, len(good))] and tokens == [0]  # C alone
    seen.clear()
    y = __import__("ruamel.yaml", fromlist=["YAML"]).YAML(typ="safe", pure=True)
    y.load(good.decode())
    whole_tokens = tokens[0]  # what the pure loader reads of the whole text
    monkeypatch.undo()
    for bad, where in ((good + b"- name: x\n  href: [unclosed\n", 3903),
                       (good[: len(good) // 2] + b"- name: x\n  href: [unclosed\n" + good[len(good) // 2:], None),
                       (b"- name: Root\n  items:\n" + b"".join(b"  " + line + b"\n" for line in (good + b"- name: x\n  href: [bad\n").splitlines()), None)):
        seen, tokens = _count_loads(monkeypatch)
        base, entries, warning = nav_entries(bad, "docs/TOC.yml")
        assert entries == [] and warning.startswith("YAML does not load:"), warning
        if where:
            assert f"(line {where}, " in warning, warning
        whole = [n for pure, n in seen if n >= len(bad) - 1]
        assert len(whole) == 1 and not seen[0][0], seen  # the C loader's attempt alone read it whole
        assert tokens[0] < whole_tokens // 20, (tokens, whole_tokens)  # the pure loader: a small part
        seen.clear()
        assert nav_entries(bad, "docs/TOC.yml")[2] == warning and seen == []  # the same bytes: not parsed again
        monkeypatch.undo()
    # what only libyaml refuses is still read by the pure loader: the whole text, as before
    odd = good + b"- name: x\n  href: [web:https://example.com/a.md]\n"
    seen, tokens = _count_loads(monkeypatch)
    base, entries, warning = nav_entries(odd, "docs/TOC.yml")
    assert warning is None and len(entries) == 300 * 6, (warning, len(entries))
    assert [pure for pure, n in seen if n >= len(odd) - 1] == [False, True], seen


def test_v61_fills_the_nav_entries_of_stored_nav_files(tmp_path, db_path):
    """A brain made before v61 (Postgres v65) stored its nav files without ``nav_entries`` rows:
    on open they are written from the stored bytes (a file in pieces or over ``NAV_MAX_BYTES``
    has none), and the brain equals a fresh import. Both engines."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg
    from gbrain.sync.importer import import_tree
    from gbrain.sync.verify import fresh_import_differences

    tree = tmp_path / "docs"
    (tree / "identity" / "ad-ds" / "plan").mkdir(parents=True)
    (tree / "identity" / "index.md").write_text("# Index\n")
    (tree / "identity" / "ad-ds" / "plan" / "Plan.md").write_text("# Plan\n")
    (tree / "identity" / "TOC.yml").write_bytes(TOC)
    (tree / "mkdocs.yml").write_bytes(b"docs_dir: identity\nnav:\n  - index.md\n")
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
        want = sorted(tuple(r) for r in b.conn.execute("SELECT file_id, ord, path, path_key, href, context, form, line FROM nav_entries"))
        assert len(want) == 6
        with b.transaction():
            b.conn.execute("DELETE FROM nav_entries")
            _rewind(b.conn, pg._nav_entries, dbmod._m61_nav_entries)
    with Brain.open(db_path) as b:
        assert sorted(tuple(r) for r in b.conn.execute("SELECT file_id, ord, path, path_key, href, context, form, line FROM nav_entries")) == want
        assert [x["slug"] for x in b.backlinks("identity/index")] == ["identity/TOC.yml", "mkdocs.yml"]
        assert fresh_import_differences(b) == {}
        b.delete_file("identity/TOC.yml")  # its rows go with it
        assert b.conn.execute("SELECT count(*) FROM nav_entries").fetchone()[0] == 1


def test_check_and_verify_deep_report_nav_entries_unlike_the_file_bytes(tmp_path, db_path):
    """``nav_entries`` rows are derived state, a function of the nav file's bytes and path:
    ``gbrain check`` and ``verify --deep`` re-read every stored nav file and report a row damaged,
    missing or left over as they report other derived rows unlike their source; ``reindex``
    writes them again from the bytes. Both engines."""
    import json

    from gbrain.sync.importer import import_tree

    tree = tmp_path / "docs"
    (tree / "identity").mkdir(parents=True)
    (tree / "identity" / "index.md").write_text("# Index\n")
    (tree / "identity" / "TOC.yml").write_bytes(TOC)
    (tree / "mkdocs.yml").write_bytes(b"docs_dir: identity\nnav:\n  - index.md\n")
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree)
    ok = gbrain_in_process("--db", str(db_path), "check")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    with Brain.open(db_path) as b, b.transaction():
        b.conn.execute("UPDATE nav_entries SET href = 'elsewhere.md' WHERE ord = 0 AND file_id = (SELECT id FROM files WHERE path = 'identity/TOC.yml')")
        b.conn.execute("DELETE FROM nav_entries WHERE file_id = (SELECT id FROM files WHERE path = 'mkdocs.yml')")
    r = gbrain_in_process("--db", str(db_path), "check")
    assert r.returncode == 1
    out = r.stdout.decode()
    assert "2 nav file(s) whose stored entries differ from their bytes: identity/TOC.yml, mkdocs.yml" in out, out
    assert "gbrain reindex" in out
    v = gbrain_in_process("--db", str(db_path), "verify", str(tree), "--deep", "--json")
    assert v.returncode == 1
    assert any("nav file(s) whose stored entries differ" in p for p in json.loads(v.stdout)["problems"]), v.stdout
    assert gbrain_in_process("--db", str(db_path), "reindex").returncode == 0
    r = gbrain_in_process("--db", str(db_path), "check")
    assert r.returncode == 0, r.stdout + r.stderr
    with Brain.open(db_path) as b:
        assert [x["slug"] for x in b.backlinks("identity/index")] == ["identity/TOC.yml", "mkdocs.yml"]


def test_nav_entries_unlike_their_bytes_do_not_make_the_brain_refuse_writes(db_path):
    """Damaged ``nav_entries`` rows are derived rows (``reindex`` writes them again), not a damaged
    file: ``check`` (``db_integrity``) reports them but leaves the brain writable in the same
    process (a ``pipe`` session runs check, then reindex)."""
    from gbrain.sync.verify import db_integrity

    with Brain.open(db_path, create=True) as b:
        _pages(b, "identity/index")
        b.save_file("identity/TOC.yml", TOC)
        with b.transaction():
            b.conn.execute("DELETE FROM nav_entries")
        probs = db_integrity(b, full=True)
        assert len(probs) == 1 and "nav file(s) whose stored entries differ" in probs[0]
        assert b.damaged is None
        b.put("identity/other", "# Other\n")
