"""A note whose file name is in NFD (as macOS writes it: ``cafe`` + U+0301) and links to it
written in NFC (as typed): one page, found and listed once by every command, links resolving
both ways, and the file name kept byte for byte (export recreates the NFD name). Both engines."""
from __future__ import annotations

import json
import unicodedata

from conftest import write_tree

NFD = unicodedata.normalize("NFD", "café")
NFC = "café"


def _tree(root):
    return write_tree(root, {
        f"{NFD}.md": "A place. See [[visit]].\n",
        f"{NFD}s/menu.md": f"# Menu\n\nAt [[{NFC}]].\n",
        "visit.md": f"# Visit\n\nWent to [[{NFC}]], [the café]({NFC}.md), [[{NFD}]] and [x]({NFD}.md); [[{NFC}s/menu]].\n",
    })


def _json(run, *args):
    r = run(*args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_an_nfd_file_name_is_one_page_everywhere(tmp_path, db_path, run):
    tree = _tree(tmp_path / "v")
    db = str(db_path)
    assert run("import", str(tree), "--db", db).returncode == 0
    pages = _json(run, "list", "--db", db)
    slugs = [p["slug"] for p in pages]
    assert sorted(slugs) == sorted([NFC, f"{NFC}s/menu", "visit"]), pages
    for q in (NFC, NFD):
        hits = _json(run, "search", q, "--db", db)
        got = [h["slug"] for h in hits]
        assert len(got) == len(set(got)) and NFC in got and NFD not in got, hits
        back = _json(run, "backlinks", q, "--db", db)
        assert sorted(b["slug"] for b in back) == [f"{NFC}s/menu", "visit"], back
    stats = _json(run, "stats", "--db", db)
    assert stats["pages"] == 3 and stats["files"] == 0 and stats["links_dangling"] == 0, stats
    out = tmp_path / "out"
    assert run("export", "--dir", str(out), "--db", db).returncode == 0
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == sorted([f"{NFD}.md", f"{NFD}s/menu.md", "visit.md"])


def test_sync_and_put_keep_the_nfd_name(tmp_path, db_path, run):
    """Sync of the NFD file, then a write through the NFC-typed name: the page stays one, its
    file keeps its NFD name (no NFC twin written beside it), and links resolve."""
    tree = _tree(tmp_path / "v")
    db = str(db_path)
    assert run("sync", str(tree), "--db", db).returncode == 0
    (tree / f"{NFD}.md").write_text("A place. See [[visit]]. Edited.\n", encoding="utf-8")
    assert run("sync", str(tree), "--db", db).returncode == 0
    r = run("timeline-add", NFC, "--date", "2026-01-02", "--summary", "Visited", "--db", db)
    assert r.returncode == 0, r.stderr
    assert run("sync", str(tree), "--db", db).returncode == 0
    assert sorted(p.name for p in tree.iterdir()) == sorted([f"{NFD}.md", f"{NFD}s", "visit.md"])
    assert "Visited" in (tree / f"{NFD}.md").read_text(encoding="utf-8")
    assert len([p for p in _json(run, "list", "--db", db) if unicodedata.normalize("NFC", p["slug"]) == NFC]) == 1
    stats = _json(run, "stats", "--db", db)
    assert stats["pages"] == 3 and stats["files"] == 0 and stats["links_dangling"] == 0, stats


def test_a_long_name_typed_decomposed_finds_its_page(tmp_path, db_path):
    # review of trial 66: a name's byte limit (255 with .md) counted the name as typed; macOS pastes
    # a name decomposed (NFD: é is 3 bytes, not 2), so the page notes/é×126 (252 bytes, its file 255)
    # typed so was refused as "longer than 255 bytes" though it is the page's own name
    from gbrain import operations as ops
    from gbrain.core.brain import Brain
    from gbrain.sync.importer import import_tree

    name = "é" * 126
    tree = write_tree(tmp_path / "vault", {f"notes/{name}.md": "hello\n"})
    typed = unicodedata.normalize("NFD", f"notes/{name}")
    assert len(typed.encode()) > 255
    with Brain.open(db_path) as b:
        assert import_tree(b, tree)["ok"]
        assert ops.run("get", {"slug": typed}, brain=b)["content"] == "hello\n"
