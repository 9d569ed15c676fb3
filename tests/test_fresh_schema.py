"""A new SQLite brain is made from the schema snapshot ``storage/sql/sqlite_fresh.sql``
(``db.FRESH_SQL``), not by replaying the 73 migrations: the snapshot must be what the chain
leaves. A migration added or changed without ``python -m gbrain.storage.fresh`` fails here."""
from __future__ import annotations

import filecmp
import sqlite3
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.storage import db as dbmod
from gbrain.storage import fresh

pytestmark = pytest.mark.engine_free

FIXTURE = Path(__file__).parent.parent / "fixtures" / "brain"
STALE = f"the schema snapshot {dbmod.FRESH_SQL.name} is not what the migration chain leaves; regenerate it: `{fresh.REGENERATE}`"
PRAGMAS = ("page_size", "auto_vacuum", "encoding", "journal_mode", "user_version", "freelist_count")


def state(conn) -> dict:
    """Everything a new brain holds: ``sqlite_master`` (shadow tables too: the FTS5 virtual
    tables make them), every table's rows (shadow ones too), the pragmas, the stamp's count."""
    master = sorted(tuple(r) for r in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    rows = {}
    for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall():
        if t in ("sqlite_sequence",) or not t.startswith("sqlite_"):
            rows[t] = sorted(tuple(r) for r in conn.execute(f'SELECT * FROM "{t}"'))
    pragmas = {k: conn.execute(f"PRAGMA {k}").fetchone()[0] for k in PRAGMAS}
    stamp = dbmod.brain_stamp(conn.execute("PRAGMA application_id").fetchone()[0])
    return {"sqlite_master": master, "rows": rows, "pragmas": pragmas, "stamp count": stamp and stamp[1]}


def differences(a: dict, b: dict) -> list[str]:
    out = []
    if a["sqlite_master"] != b["sqlite_master"]:
        out += [f"only by the chain: {r}" for r in sorted(set(a["sqlite_master"]) - set(b["sqlite_master"]))]
        out += [f"only by the snapshot: {r}" for r in sorted(set(b["sqlite_master"]) - set(a["sqlite_master"]))]
    for t in sorted(set(a["rows"]) | set(b["rows"])):
        if a["rows"].get(t) != b["rows"].get(t):
            out.append(f"rows of {t}: chain {a['rows'].get(t)!r:.300} snapshot {b['rows'].get(t)!r:.300}")
    for k in ("pragmas", "stamp count"):
        if a[k] != b[k]:
            out.append(f"{k}: chain {a[k]} snapshot {b[k]}")
    return out


def snapshot_brain(path: Path, monkeypatch) -> sqlite3.Connection:
    """A new brain made by ``db.connect``, checked to have come from the snapshot."""
    used = []
    real = dbmod.fresh_statements

    def spy():
        got = real()
        used.append(got is not None)
        return got

    monkeypatch.setattr(dbmod, "fresh_statements", spy)
    conn = dbmod.connect(path)
    monkeypatch.setattr(dbmod, "fresh_statements", real)
    assert used == [True], f"a new brain was not made from the snapshot ({used}); {STALE}"
    return conn


def test_snapshot_is_what_the_chain_leaves(tmp_path, monkeypatch):
    chain = fresh.chain_brain(tmp_path / "chain.db")
    snap = snapshot_brain(tmp_path / "snap.db", monkeypatch)
    try:
        a, b = state(chain), state(snap)
    finally:
        chain.close()
        snap.close()
    assert a["pragmas"]["user_version"] == dbmod.SCHEMA_VERSION and a["stamp count"] == 1
    diff = differences(a, b)
    assert not diff, STALE + "\n" + "\n".join(diff[:20])


def test_snapshot_file_is_generated_from_the_chain(tmp_path):
    """The file is byte for byte what the generator writes now (a hand edit fails too)."""
    text = fresh.generate(tmp_path / "again.sql")
    assert dbmod.FRESH_SQL.read_text(encoding="utf-8") == text, STALE


def test_snapshot_holds_no_shadow_table_and_no_brain_id():
    text = dbmod.FRESH_SQL.read_text(encoding="utf-8")
    for shadow in ("page_fts_data", "page_fts_idx", "page_fts_config", "page_fts_docsize", "canvas_fts_data"):
        assert f"CREATE TABLE {shadow}" not in text and f"CREATE TABLE '{shadow}'" not in text
    assert "application_id" not in text


def test_each_new_brain_gets_its_own_id(tmp_path, monkeypatch):
    """v52's random brain id is drawn per brain, as the chain draws it, never frozen in the file."""
    import secrets

    for n, want in enumerate((7, 3001)):
        monkeypatch.setattr(secrets, "randbelow", lambda k, want=want: want)
        conn = snapshot_brain(tmp_path / f"b{n}.db", monkeypatch)
        assert dbmod.brain_stamp(conn.execute("PRAGMA application_id").fetchone()[0]) == (want, 1)
        conn.close()


def test_an_older_chain_is_replayed(tmp_path, monkeypatch):
    """A gbrain whose chain is not the snapshot's (a test holding a brain at an older schema)
    makes the brain by its chain: the snapshot is of v73 only."""
    with monkeypatch.context() as m:
        m.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:-1])
        m.setattr(dbmod, "SCHEMA_VERSION", dbmod.SCHEMA_VERSION - 1)
        assert dbmod.fresh_statements() is None
        conn = dbmod.connect(tmp_path / "old.db")
        assert conn.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
        conn.close()
    conn = dbmod.connect(tmp_path / "old.db")  # then upgraded by the last step
    assert conn.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
    conn.close()


def test_a_creation_cut_midway_leaves_no_half_brain(tmp_path, monkeypatch):
    """The snapshot runs in one transaction: a failure (a kill, a full disk) after half its
    statements leaves an empty brain (v0, no table), which the next open makes whole."""
    stmts = dbmod.fresh_statements()
    assert stmts

    class Cut(Exception):
        pass

    calls = []
    real = dbmod._m52_brain_stamp

    def cut(conn):
        calls.append(conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0])
        raise Cut

    monkeypatch.setattr(dbmod, "FRESH_PER_BRAIN", (cut,))
    p = tmp_path / "cut.db"
    with pytest.raises(Cut):
        dbmod.connect(p)
    assert calls and calls[0] > 100  # (cut after every statement of the file ran)
    c = sqlite3.connect(p)
    assert c.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0
    assert c.execute("PRAGMA user_version").fetchone()[0] == 0
    c.close()
    monkeypatch.setattr(dbmod, "FRESH_PER_BRAIN", (real,))
    conn = dbmod.connect(p)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
    conn.close()


def test_import_and_verify_alike_on_both(tmp_path, monkeypatch):
    """fixtures/brain imported into a brain of the chain and one of the snapshot: both verify,
    both equal a fresh import, and both export the same bytes."""
    from gbrain.sync.exporter import export_tree
    from gbrain.sync.importer import import_tree
    from gbrain.sync.verify import derived_snapshot, fresh_import_differences

    fresh.chain_brain(tmp_path / "chain.db").close()
    snapshot_brain(tmp_path / "snap.db", monkeypatch).close()
    snaps = {}
    for name in ("chain", "snap"):
        b = Brain.open(tmp_path / f"{name}.db")
        try:
            report = import_tree(b, FIXTURE)
            assert report["ok"], (name, report)
            assert fresh_import_differences(b) == {}, name
            snaps[name] = derived_snapshot(b)
            export_tree(b, tmp_path / f"out_{name}")
        finally:
            b.close()
    assert snaps["chain"] == snaps["snap"]
    cmp = filecmp.dircmp(tmp_path / "out_chain", tmp_path / "out_snap")
    mism = []

    def walk(d):
        mism.extend(d.left_only + d.right_only + d.diff_files + d.funny_files)
        for sub in d.subdirs.values():
            walk(sub)

    walk(cmp)
    assert not mism
    for a in (tmp_path / "out_chain").rglob("*"):
        if a.is_file():
            assert a.read_bytes() == (tmp_path / "out_snap" / a.relative_to(tmp_path / "out_chain")).read_bytes()
