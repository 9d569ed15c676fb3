"""Two ``.raw`` sidecars of one page: ``people/.raw/ana.json`` beside ``ana.JSON`` (the extension's
letter case), or one name in NFC and in NFD (``josé.json`` twice). Both are sidecars of
``people/ana`` (``slugs.page_slug_for_sidecar``). Before, import's report was "not ok" (it counted
both files' sources), ``raw-put`` wrote the first by path while the page's rows came from the
one stored last. Now one is read (``slugs.chosen_sidecar``: the one named as its page, else one
ending in ``.json``, else the first by code point), whatever the order they were stored in; the
others are kept and exported byte for byte; the report is ok and says which one is used; lint's
``portable_names`` names the case; sync gives a fresh import's rows."""
from __future__ import annotations

import itertools
import os
import json
import unicodedata

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.core.lint import lint
from gbrain.sync.engine import SyncEngine
from gbrain.sync.exporter import export_tree
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

NFC, NFD = unicodedata.normalize("NFC", "josé"), unicodedata.normalize("NFD", "josé")
ONE = b'{"sources": {"one": {"x": 1}}}\n'
TWO = b'{\n  "sources": {"two": 2, "three": [3]}\n}\n'

# (page file name, the sidecar named as its page, the other sidecar)
CASES = [
    ("ana", "ana.json", "ana.JSON"),
    (NFC, NFC + ".json", NFD + ".json"),
    (NFD, NFD + ".json", NFC + ".json"),  # a page named in NFD: its NFD sidecar
]
IDS = ["case", "nfc-page", "nfd-page"]


def _tree(root, page, files: dict[str, bytes]):
    (root / "people" / ".raw").mkdir(parents=True, exist_ok=True)
    (root / "people" / f"{page}.md").write_text(f"# {page}\n\nSee the raw data.\n")
    for name, data in files.items():
        (root / "people" / ".raw" / name).write_bytes(data)
    return root


def _run(b, name, args):
    warnings: list[str] = []
    out = ops.run(name, args, ops.Context(surface="cli", on_warning=warnings.append), brain=b)
    return out, warnings


def _slug(page):
    return "people/" + unicodedata.normalize("NFC", page)


@pytest.mark.engine_free
def test_the_sidecar_read_is_the_one_named_as_its_page_whatever_the_order():
    from gbrain.page.slugs import chosen_sidecar

    for page, own, other in CASES:
        paths = [f"people/.raw/{own}", f"people/.raw/{other}"]
        for order in itertools.permutations(paths):
            assert chosen_sidecar(order, f"people/{page}.md") == f"people/.raw/{own}"
    # none named as its page: one ending in .json, else the first by code point
    assert chosen_sidecar(["p/.raw/" + NFC + ".JSON", "p/.raw/" + NFD + ".json"], f"p/{NFC}.md") == "p/.raw/" + NFD + ".json"
    assert chosen_sidecar(["p/.raw/a.Json", "p/.raw/a.JSON"], "p/a.md") == "p/.raw/a.JSON"


@pytest.mark.parametrize("page, own, other", CASES, ids=IDS)
def test_import_reads_one_sidecar_keeps_both_and_says_which(db_path, tmp_path, page, own, other):
    src = _tree(tmp_path / "src", page, {own: ONE, other: TWO})
    slug = _slug(page)
    with Brain.open(db_path, create=True) as b:
        rep = import_tree(b, src)
        assert rep["ok"], rep["problems"]
        notes = rep["raw"]["sidecars_of_one_page"]
        assert len(notes) == 1 and notes[0].startswith(f"2 sidecars for {slug}: ") and f"— using {own}" in notes[0], notes
        assert rep["raw"]["raw_rows_expected"] == rep["raw"]["raw_rows_stored"] == 1
        assert any(f"2 sidecars for {slug}" in w for w in rep["warnings"]), rep["warnings"]
        # raw reads the one named as its page, and says so
        got, warned = _run(b, "raw", {"slug": slug})
        assert got == {"one": {"x": 1}} and len(warned) == 1 and f"using {own}" in warned[0]
        # raw-put writes into that one: the rows come from the file it wrote
        put, warned = _run(b, "raw-put", {"slug": slug, "source": "new", "data": {"k": 1}})
        assert put["path"] == f"people/.raw/{own}" and put["changed"] and warned
        assert _run(b, "raw", {"slug": slug})[0] == {"one": {"x": 1}, "new": {"k": 1}}
        other_bytes = bytes(b.conn.execute("SELECT data FROM files WHERE path = ?", (f"people/.raw/{other}",)).fetchone()[0])
        assert other_bytes == TWO
        # export writes both files, the other byte for byte
        out = tmp_path / "out"
        assert export_tree(b, out)["ok"]
        assert sorted(p.name for p in (out / "people" / ".raw").iterdir()) == sorted([own, other])
        assert (out / "people" / ".raw" / other).read_bytes() == TWO
        assert json.loads((out / "people" / ".raw" / own).read_bytes())["sources"] == {"one": {"x": 1}, "new": {"k": 1}}
        assert fresh_import_differences(b) == {}
        # get of the sidecar that is not read says which one is
        with pytest.raises(Exception) as e:
            _run(b, "get", {"slug": f"people/.raw/{other}"})
        assert f"reads its page's other sidecar people/.raw/{own}, not this one" in str(e.value)
        # lint names the case, with what to do
        items = lint(b, checks=["portable_names"])["items"]
        assert len(items) == 1 and items[0]["slug"] == slug and f"using {own}" in items[0]["message"], items
        assert "raw-put" in items[0]["action"]


@pytest.mark.parametrize("page, own, other", CASES, ids=IDS)
def test_sync_gives_the_rows_of_a_fresh_import_in_any_order(db_path, tmp_path, page, own, other):
    """The sidecar named as its page gives the rows whichever came first, changed or went
    (incremental equals fresh: ``fresh_import_differences``)."""
    root = _tree(tmp_path / "tree", page, {other: TWO})
    slug = _slug(page)
    raw = root / "people" / ".raw"
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        try:
            eng.bind()
            assert eng.sync()["ok"]
            assert b.raw_get(slug) == {"two": 2, "three": [3]}  # the only one: read
            (raw / own).write_bytes(ONE)
            rep = eng.sync()
            assert rep["ok"], rep["problems"]
            assert b.raw_get(slug) == {"one": {"x": 1}}
            assert fresh_import_differences(b) == {}
            (raw / other).write_bytes(TWO.replace(b"2,", b"22,"))  # the other changed: the rows stay
            assert eng.sync()["ok"]
            assert b.raw_get(slug) == {"one": {"x": 1}}
            assert fresh_import_differences(b) == {}
            (raw / own).unlink()  # the one read went: the other's rows
            rep = eng.sync()
            assert rep["ok"], rep["problems"]
            assert b.raw_get(slug) == {"two": 22, "three": [3]}
            assert fresh_import_differences(b) == {}
        finally:
            eng.close()


def test_the_cli_raw_warns_which_sidecar_it_reads(db_path, tmp_path):
    from conftest import gbrain_in_process

    src = _tree(tmp_path / "src", "ana", {"ana.json": ONE, "ana.JSON": TWO})
    r = gbrain_in_process("--db", str(db_path), "import", str(src))
    assert r.returncode == 0, r.stderr
    note = "2 sidecars for people/ana: ana.JSON, ana.json — using ana.json"
    assert f"  {note} (named as its page;" in r.stdout.decode() and "Validation: OK" in r.stdout.decode()  # the report says it
    assert r.stderr.decode().count("2 sidecars for") == 1, r.stderr  # trial 53 saw it twice on stderr: once (with the names warning)
    r2 = gbrain_in_process("--db", str(db_path), "import", str(src))
    assert "2 sidecars for" not in r2.stderr.decode(), r2.stderr  # a tree re-imported unchanged says nothing again
    # pipe (as an agent's tool call): the answer's warnings say it
    r = gbrain_in_process("--db", str(db_path), "pipe", input='{"tool": "raw", "arguments": {"slug": "people/ana"}}\n')
    answer = json.loads(r.stdout)
    assert answer["ok"] and answer["result"] == {"one": {"x": 1}} and note in answer["warnings"][0], answer
    r = gbrain_in_process("--db", str(db_path), "raw", "people/ana")
    assert r.returncode == 0 and json.loads(r.stdout) == {"one": {"x": 1}}
    assert note in r.stderr.decode()


@pytest.mark.pg_empty  # made at the schema before by this test, not a copy of a migrated brain
@pytest.mark.parametrize("page, own, other", CASES, ids=IDS)
def test_a_brain_whose_rows_came_from_the_other_sidecar_upgrades_to_a_fresh_imports_rows(db_path, tmp_path, monkeypatch, page, own, other):
    """A brain written before (SQLite v65 / Postgres v70) took a page's rows from the sidecar
    stored last: the upgrade (``db.fill_twin_sidecars``) derives them from the one read."""
    from conftest import writable_by_this_gbrain
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg, rawspans

    src = _tree(tmp_path / "src", page, {own: ONE, other: TWO})
    (src / "people" / ".raw" / "bo.json").write_bytes(b'{"sources": {"plain": 1}}')  # one sidecar: left alone
    (src / "people" / "bo.md").write_text("# bo\n")
    slug = _slug(page)
    with monkeypatch.context() as m:
        m.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:65])
        m.setattr(dbmod, "SCHEMA_VERSION", 65)
        m.setattr(pg, "PG_SCHEMA_VERSION", 70)
        with Brain.open(db_path, create=True) as b:
            writable_by_this_gbrain(b.conn)
            import_tree(b, src)
            # the rows as the gbrain before left them: the other sidecar's (stored last)
            pid = b.conn.execute("SELECT id FROM pages WHERE slug = ?", (slug,)).fetchone()[0]
            fid = b.conn.execute("SELECT id FROM files WHERE path = ?", (f"people/.raw/{other}",)).fetchone()[0]
            b.conn.execute("BEGIN")
            b.conn.execute("DELETE FROM raw_spans WHERE page_id = ?", (pid,))
            rawspans.insert_rows(b.conn, pid, fid, TWO, rawspans.sidecar_rows(TWO))
            b.conn.execute("COMMIT")
            assert b.raw_get(slug) == {"two": 2, "three": [3]}
            bo = b.conn.execute("SELECT id, source, file_id, start, len FROM raw_spans WHERE source = 'plain'").fetchall()
    with Brain.open(db_path) as b:
        assert b.raw_get(slug) == {"one": {"x": 1}}
        assert b.conn.execute("SELECT id, source, file_id, start, len FROM raw_spans WHERE source = 'plain'").fetchall() == bo  # untouched
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("page, own, other", CASES + [("ana", "ana.JSON", None)], ids=IDS + ["one-upper"])
def test_a_page_synced_after_its_sidecars_takes_them_as_a_fresh_import(db_path, tmp_path, page, own, other):
    """Sidecars that came before their page (``ana.JSON``, an NFD name: no page yet) are its
    sidecars once it comes, as a fresh import attaches them (before, sync attached only the
    name ``raw-put`` writes, so ``ana.JSON`` alone stayed a sidecar of no page)."""
    root = tmp_path / "tree"
    (root / "people" / ".raw").mkdir(parents=True)
    (root / "people" / ".raw" / own).write_bytes(ONE)
    if other:
        (root / "people" / ".raw" / other).write_bytes(TWO)
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        try:
            eng.bind()
            eng.sync()
            (root / "people" / f"{page}.md").write_text(f"# {page}\n")
            rep = eng.sync()
            assert rep["ok"], rep["problems"]
            assert b.raw_get(_slug(page)) == {"one": {"x": 1}}
            assert fresh_import_differences(b) == {}
        finally:
            eng.close()


@pytest.mark.parametrize("page, own, other", CASES + [("ana", "ana.JSON", None)], ids=IDS + ["one-upper"])
def test_move_takes_every_sidecar_of_the_page_as_a_fresh_import_reads_them(db_path, tmp_path, page, own, other):
    """``move`` renamed only the sidecar named as the page's slug: its twin (``ana.JSON``, the other
    Unicode form; or a page's only sidecar spelled ``ana.JSON``) kept the old name but stayed the
    page's in the brain, while a fresh import of the tree reads it as raw data of no page. Every
    sidecar of the page moves with it (its extension's spelling and Unicode form kept); the
    twins of one name in NFC and NFD have one new name (``bob.json``): the one read takes it, the
    other keeps its name, raw data of no page, as a fresh import reads it."""
    files = {own: ONE} | ({other: TWO} if other else {})
    src = _tree(tmp_path / "src", page, files)
    slug = _slug(page)
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, src)["ok"]
        out, _ = _run(b, "move", {"slug": slug, "to": "people/bob"})
        assert out["slug"] == "people/bob"
        left = [tuple(r) for r in b.conn.execute("SELECT path, page_id FROM files WHERE kind = 'raw' AND path NOT LIKE 'people/.raw/bob%'")]
        assert left == ([] if page == "ana" else [(f"people/.raw/{other}", None)]), left
        moved = sorted(r[0] for r in b.conn.execute("SELECT path FROM files WHERE kind = 'raw' AND path LIKE 'people/.raw/bob%'"))
        assert moved == sorted({f"people/.raw/bob{n[-5:]}" for n in files}), moved
        assert b.raw_get("people/bob") == {"one": {"x": 1}}
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("page, own, other", CASES + [("ana", "ana.JSON", None)], ids=IDS + ["one-upper"])
def test_a_page_renamed_in_the_folder_takes_its_sidecars_as_a_fresh_import(db_path, tmp_path, page, own, other):
    """sync of a page renamed on disk renamed its ``.raw/<slug>.json`` only: ``ana.JSON`` stayed the
    moved page's in the brain under its old name (a fresh import: a sidecar of no page)."""
    files = {own: ONE} | ({other: TWO} if other else {})
    root = _tree(tmp_path / "tree", page, files)
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        try:
            eng.bind()
            assert eng.sync()["ok"]
            os.rename(root / "people" / f"{page}.md", root / "people" / "bob.md")
            rep = eng.sync()
            assert rep["ok"], rep["problems"]
            assert b.raw_get("people/bob") == {"one": {"x": 1}}
            assert fresh_import_differences(b) == {}
            # on disk too: each renamed (the twin of the other Unicode form keeps its name)
            assert sorted(p.name for p in (root / "people" / ".raw").iterdir()) == sorted(
                [f"bob{n[-5:]}" for n in files] if page == "ana" else ["bob.json", other])
        finally:
            eng.close()


def test_a_first_sync_warns_of_two_sidecars_once(db_path, tmp_path):
    """Trial 53 saw the twin-sidecar warning twice on a first import's stderr: a first sync says it once too."""
    from conftest import gbrain_in_process

    src = _tree(tmp_path / "src", "ana", {"ana.json": ONE, "ana.JSON": TWO})
    r = gbrain_in_process("--db", str(db_path), "sync", str(src))
    assert r.returncode == 0 and r.stderr.decode().count("2 sidecars for people/ana") == 1, r.stderr


@pytest.mark.parametrize("how", ["revived", "adopted"])
@pytest.mark.parametrize("page, own, other", CASES + [("ana", "ana.JSON", None)], ids=IDS + ["one-upper"])
def test_a_page_sync_brings_back_under_a_new_name_takes_its_sidecars_as_a_fresh_import(db_path, tmp_path, page, own, other, how):
    """A page sync trashed and brings back as a late move (``_revive``: deleted, then the note
    created elsewhere; ``_adopt``: created elsewhere, then deleted) moved ``.raw/<old slug>.json``
    only: ``ana.JSON`` stayed behind, and a page named in NFD moved its NFC twin (the one not read).
    Every sidecar follows it, as a rename seen by sync does (``Brain.sidecar_renames``)."""
    from gbrain.sync import engine as engine_mod

    files = {own: ONE} | ({other: TWO} if other else {})
    root = _tree(tmp_path / "tree", page, files)
    old, new = f"people/{page}.md", "people/bob.md"
    text = (root / old).read_text()
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        try:
            eng.bind()
            assert eng.sync()["ok"]
            now = [1000.0]
            eng.clock = lambda: now[0]
            pid = b.page_row(_slug(page))["id"]
            if how == "revived":
                (root / old).unlink()
                assert eng.reconcile(paths=[old]).trashed == [old]
                now[0] += engine_mod.RECENT_TRASH_S - 1
                (root / new).write_text(text)
                out = eng.reconcile(paths=[new])
            else:
                (root / new).write_text(text)
                assert eng.reconcile(paths=[new]).imported == [new]
                now[0] += engine_mod.RECENT_TRASH_S - 1
                (root / old).unlink()
                out = eng.reconcile(paths=[old])
            assert (old, new) in out.moved, out
            assert b.page_row("people/bob")["id"] == pid
            assert b.raw_get("people/bob") == {"one": {"x": 1}}
            assert fresh_import_differences(b) == {}
            assert sorted(p.name for p in (root / "people" / ".raw").iterdir()) == sorted(
                [f"bob{n[-5:]}" for n in files] if page == "ana" else ["bob.json", other])
            rep = eng.sync()
            assert rep["ok"], rep["problems"]
            assert fresh_import_differences(b) == {}
        finally:
            eng.close()


TWINS = CASES + [("ana", "ana.JSON", None)]
TWIN_IDS = IDS + ["one-upper"]


def _synced(tmp_path, b, page, files):
    root = _tree(tmp_path / "tree", page, files)
    eng = SyncEngine(b, root)
    eng.bind()
    assert eng.sync()["ok"]
    return root, eng


def _on_disk(root) -> dict[str, bytes]:
    raw = root / "people" / ".raw"
    return {p.name: p.read_bytes() for p in raw.iterdir()} if raw.is_dir() else {}


@pytest.mark.parametrize("how", ["files", "folder"])
@pytest.mark.parametrize("page, own, other", TWINS, ids=TWIN_IDS)
def test_restore_brings_back_every_sidecar_deleted_with_the_page(db_path, tmp_path, page, own, other, how):
    """A page sync (or watch, a folder deleted) trashed with its sidecars: ``restore`` of the page
    brought back only ``.raw/<slug>.json`` (not ``ana.JSON``; for a page named in NFD its NFC
    twin, the one not read). Every sidecar deleted with the page comes back, and the answer lists
    each; the next sync writes them byte for byte; the rows are a fresh import's."""
    import shutil

    files = {own: ONE} | ({other: TWO} if other else {})
    with Brain.open(db_path, create=True) as b:
        root, eng = _synced(tmp_path, b, page, files)
        (root / "keep.md").write_text("# keep\n")
        assert eng.sync()["ok"]
        try:
            before = _on_disk(root)
            if how == "files":
                (root / "people" / f"{page}.md").unlink()
                for n in files:
                    (root / "people" / ".raw" / n).unlink()
                assert eng.sync()["ok"]
            else:  # watch: the folder deleted, one round over it
                shutil.rmtree(root / "people")
                out = eng.reconcile([], ["people"])
                assert sorted(out.trashed) == sorted([f"people/{page}.md"] + [f"people/.raw/{n}" for n in files]), out.trashed
            assert b.page_row(_slug(page)) is None
            got, _ = _run(b, "restore", {"slug": _slug(page)})
            assert got["restored"][0] == f"people/{page}.md"
            assert sorted(got["restored"][1:]) == sorted(f"people/.raw/{n}" for n in files), got
            assert not [t for t in b.conn.execute("SELECT 1 FROM files WHERE path LIKE 'people/.raw/%' AND page_id IS NULL")]
            assert b.raw_get(_slug(page)) == {"one": {"x": 1}}
            assert fresh_import_differences(b) == {}
            assert eng.sync()["ok"]
            assert _on_disk(root) == before
            assert (root / "people" / f"{page}.md").read_text() == f"# {page}\n\nSee the raw data.\n"
            assert fresh_import_differences(b) == {}
            trash = ops.run("trash", {}, ops.Context(surface="cli"), brain=b)
            assert not [t for t in trash if (t["path"] or "").startswith("people/")], trash
        finally:
            eng.close()


@pytest.mark.parametrize("early", ["own", "other"])
@pytest.mark.parametrize("between", ["an hour before", "another write between"])
@pytest.mark.parametrize("page, own, other", CASES, ids=IDS)
def test_restore_leaves_a_sidecar_deleted_before_the_page_in_the_trash(db_path, tmp_path, page, own, other, between, early):
    """A sidecar deleted on its own before the page (an hour before, or with another write between
    the two deletions) was deleted on purpose: restore brings back the page and the sidecar
    deleted with it, not that one (it stays in the trash; ``restore PATH`` brings it back).
    Before, restore took ``.raw/<slug>.json`` whenever it was in the trash, however long ago."""
    gone, kept = (own, other) if early == "own" else (other, own)
    data = {own: ONE, other: TWO}
    with Brain.open(db_path, create=True) as b:
        root, eng = _synced(tmp_path, b, page, data)
        try:
            (root / "people" / ".raw" / gone).unlink()
            assert eng.sync()["ok"]
            if between == "an hour before":
                b.conn.execute("BEGIN")
                b.conn.execute("UPDATE history SET at = '2020-01-01T00:00:00.000Z' WHERE kind = 'file' AND name = ? AND op = 'delete'",
                               (f"people/.raw/{gone}",))
                b.conn.execute("COMMIT")
            else:
                _run(b, "put", {"slug": "notes/x", "content": "# x\n"})
            (root / "people" / f"{page}.md").unlink()
            (root / "people" / ".raw" / kept).unlink()
            assert eng.sync()["ok"]
            got, _ = _run(b, "restore", {"slug": _slug(page)})
            assert got["restored"] == [f"people/{page}.md", f"people/.raw/{kept}"], got
            assert b.raw_get(_slug(page)) == json.loads(data[kept])["sources"]
            assert [t["path"] for t in ops.run("trash", {}, ops.Context(surface="cli"), brain=b)] == [f"people/.raw/{gone}"]
            assert fresh_import_differences(b) == {}
            got, _ = _run(b, "restore", {"slug": f"people/.raw/{gone}"})  # by its own path
            assert got["restored"] == [f"people/.raw/{gone}"]
            assert b.raw_get(_slug(page)) == {"one": {"x": 1}}
            assert fresh_import_differences(b) == {}
        finally:
            eng.close()


@pytest.mark.parametrize("page, own, other", TWINS, ids=TWIN_IDS)
def test_delete_keeps_the_sidecars_and_restore_gives_them_back_to_the_page(db_path, tmp_path, page, own, other):
    """``gbrain delete`` deletes the page only: its sidecars (every twin) stay, raw data of no page
    as a fresh import reads them; restore makes them the page's again."""
    files = {own: ONE} | ({other: TWO} if other else {})
    src = _tree(tmp_path / "src", page, files)
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, src)["ok"]
        _run(b, "delete", {"slug": _slug(page)})
        assert sorted(r[0] for r in b.conn.execute("SELECT path FROM files WHERE page_id IS NULL")) == sorted(f"people/.raw/{n}" for n in files)
        assert fresh_import_differences(b) == {}
        got, _ = _run(b, "restore", {"slug": _slug(page)})
        assert got["restored"] == [f"people/{page}.md"]
        assert b.raw_get(_slug(page)) == {"one": {"x": 1}}
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("page, own, other", TWINS, ids=TWIN_IDS)
def test_undo_of_a_round_that_trashed_a_page_brings_back_every_sidecar(db_path, tmp_path, page, own, other):
    """``undo`` takes back each write of its window: the page and each sidecar trashed with it."""
    files = {own: ONE} | ({other: TWO} if other else {})
    with Brain.open(db_path, create=True) as b:
        root, eng = _synced(tmp_path, b, page, files)
        try:
            last = b.conn.execute("SELECT MAX(id) FROM history").fetchone()[0]
            (root / "people" / f"{page}.md").unlink()
            for n in files:
                (root / "people" / ".raw" / n).unlink()
            assert eng.sync()["ok"]
            since = b.conn.execute("SELECT MIN(at) FROM history WHERE id > ?", (last,)).fetchone()[0]  # the round's deletions
            got, _ = _run(b, "undo", {"since": since, "apply": True})
            assert got["counts"] == {"restore": 1 + len(files)}, got
            assert b.raw_get(_slug(page)) == {"one": {"x": 1}}
            assert fresh_import_differences(b) == {}
            assert eng.sync()["ok"]
            assert _on_disk(root) == files
        finally:
            eng.close()


@pytest.mark.parametrize("to", ["last", "older"])
@pytest.mark.parametrize("page, own, other", TWINS, ids=TWIN_IDS)
def test_revert_of_a_deleted_page_brings_back_every_sidecar_deleted_with_it(db_path, tmp_path, page, own, other, to):
    """``revert SLUG --to N`` of a page sync trashed with its sidecars brought back the page alone
    (its raw data left in the trash, the page reading none), where ``restore`` brings them all:
    a revert that brings back a deleted page brings every sidecar deleted with it the same way
    (``history.sidecars_deleted_with``), to its last version or an older one, and its answer lists
    them under ``restored`` as restore's does (the text names them)."""
    files = {own: ONE} | ({other: TWO} if other else {})
    with Brain.open(db_path, create=True) as b:
        root, eng = _synced(tmp_path, b, page, files)
        try:
            b.put(_slug(page), b.get_text(_slug(page)) + "\nEdited.\n")
            assert eng.sync()["ok"]
            before = _on_disk(root)
            (root / "people" / f"{page}.md").unlink()
            for n in files:
                (root / "people" / ".raw" / n).unlink()
            assert eng.sync()["ok"] and b.page_row(_slug(page)) is None
            versions = [v for v in ops.run("history", {"slug": _slug(page)}, brain=b)["versions"] if v["op"] != "delete"]
            n = versions[0 if to == "last" else -1]["version"]
            got, _ = _run(b, "revert", {"slug": _slug(page), "to": n})
            assert got["changed"] and got["restored"][0] == f"people/{page}.md", got
            assert sorted(got["restored"][1:]) == sorted(f"people/.raw/{n}" for n in files), got
            assert b.raw_get(_slug(page)) == {"one": {"x": 1}}
            text = ops.REGISTRY["revert"].text(got, {})
            assert all(p in text for p in got["restored"][1:]), text
            assert fresh_import_differences(b) == {}
            assert eng.sync()["ok"]
            assert _on_disk(root) == before
            trash = ops.run("trash", {}, ops.Context(surface="cli"), brain=b)
            assert not [t for t in trash if (t["path"] or "").startswith("people/.raw/")], trash
        finally:
            eng.close()
