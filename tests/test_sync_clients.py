"""Sync clients: listing them (`gbrain sync-clients`), forgetting one (`gbrain sync-forget`), and
the machine recorded with each (`sync_root.machine`, SQLite v80 / Postgres v88).

Before: a folder that no longer synced kept its `sync_state` rows (so `history-prune` kept a
version for each of its merge bases) and held the change log back until it expired (30 days);
SQLite had only `sync --rebind` to another folder, Postgres nothing. And two machines under one
client id (containers from one image: one host name, one folder path) were refused only while the
other's watch ran. Runs on either engine (`--engine postgres`).
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import gbrain_in_process as gbrain, write_tree

from gbrain import operations as ops
from gbrain.core import history as h
from gbrain.core.brain import Brain
from gbrain.storage.db import is_postgres
from gbrain.sync import engine as engine_mod
from gbrain.sync.engine import SyncEngine


def run(b, name, **args):
    return ops.run(name, args, ops.Context(surface="cli"), brain=b)


def _ok(r) -> str:
    assert r.returncode == 0, (r.stdout + r.stderr).decode()
    return r.stdout.decode()


def _synced_then_offline(db_path, tmp_path):
    """A folder synced with notes/a.md (five lines) and notes/same.md, the brain's notes/a edited
    four times at its first line while the folder, offline, edits its last line: ``(t0, root)``."""
    root = tmp_path / "vault"
    t0 = "".join(f"line {i}\n" for i in range(5))
    write_tree(root, {"notes/a.md": t0, "notes/same.md": "# Same\n\nUnchanged.\n"})
    with Brain.open(db_path) as b:
        e = SyncEngine(b, root)
        e.bind()
        assert e.sync()["exit_code"] == 0
        e.close()
        for i in range(4):
            run(b, "put", slug="notes/a", content=f"line 0 brain {i}\n" + t0.split("\n", 1)[1])
    (root / "notes/a.md").write_text(t0.replace("line 4\n", "line 4 folder\n"))
    return t0, root


def test_a_forgotten_folder_keeps_no_base_from_prune_nor_the_change_log_and_syncs_again_losing_nothing(db_path, tmp_path):
    t0, root = _synced_then_offline(db_path, tmp_path)
    db = str(db_path)
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT count(*) FROM change_log").fetchone()[0] >= 4  # held back for the folder
    listed = json.loads(_ok(gbrain("sync-clients", "--json", "--db", db)))
    assert [(c["root"], c["this_machine"], c["behind"], c["paths"]) for c in listed] == [(str(root), True, 4, 2)], listed
    out = _ok(gbrain("sync-forget", str(root), "--db", db))
    assert "forgot" in out and "2 base path(s)" in out, out
    assert gbrain("sync-clients", "--db", db).stdout == b""
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT count(*) FROM change_log").fetchone()[0] == 0  # nobody needs it now
        assert b.conn.execute("SELECT count(*) FROM sync_state").fetchone()[0] == 0
        # the prune no longer keeps notes/a v1 (the folder's merge base) for it
        run(b, "history-prune", keep_last=1, keep_days=0, apply=True)
        assert [v["version"] for v in h.versions(b, "notes/a", limit=0)["versions"]] == [5]
    # the folder syncs again: a first sync; the equal note is no conflict, the differing one is a copy
    r = gbrain("sync", str(root), "--json", "--db", db)
    rep = json.loads(r.stdout)
    assert r.returncode == 3 and [(c["path"], c["kind"]) for c in rep["conflicts"]] == [("notes/a.md", "no-base")], rep
    brain_text = "line 0 brain 3\n" + t0.split("\n", 1)[1]
    assert (root / "notes/a.md").read_text() == brain_text  # the brain's version kept ...
    assert (root / rep["conflicts"][0]["copy_path"]).read_text() == t0.replace("line 4\n", "line 4 folder\n")  # ... the folder's in a copy
    assert (root / "notes/same.md").read_text() == "# Same\n\nUnchanged.\n"
    with Brain.open(db_path) as b:
        assert b.get_text("notes/same") == "# Same\n\nUnchanged.\n"
        assert b.conn.execute("SELECT count(*) FROM sync_state").fetchone()[0] >= 2  # bound again


def test_forgetting_one_folder_of_a_team_brain_trims_the_log_to_the_others(db_path, tmp_path):
    """Postgres keeps a client per folder: forgetting the one that lags lets the log go up to the
    next live client's place, and leaves that client as it is."""
    t0, root = _synced_then_offline(db_path, tmp_path)
    other = write_tree(tmp_path / "other", {"x.md": "# X\n"})
    db = str(db_path)
    with Brain.open(db_path) as b:
        if not is_postgres(b.conn):
            pytest.skip("a SQLite brain has one folder (the first test forgets it)")
    _ok(gbrain("sync", str(other), "--db", db))
    with Brain.open(db_path) as b:
        run(b, "put", slug="late", content="# Late\n")  # a row `other` has not applied yet
    listed = {c["root"]: c for c in json.loads(_ok(gbrain("sync-clients", "--json", "--db", db)))}
    assert (listed[str(root)]["behind"], listed[str(other)]["behind"]) == (6, 1), listed
    client = listed[str(root)]["client"]
    assert client.endswith(":" + str(root))
    _ok(gbrain("sync-forget", client, "--db", db))  # by its client id, as listed
    listed = json.loads(_ok(gbrain("sync-clients", "--json", "--db", db)))
    assert [(c["root"], c["behind"]) for c in listed] == [(str(other), 1)], listed
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT count(*) FROM change_log").fetchone()[0] == 1  # the row `other` still needs
        assert b.conn.execute("SELECT count(*) FROM sync_state WHERE client = ?", (client,)).fetchone()[0] == 0
    r = gbrain("sync-forget", str(root), "--db", db)
    assert r.returncode == 1 and b"does not sync with" in r.stderr, r.stderr


def test_forget_is_refused_while_a_watch_of_the_folder_runs(db_path, tmp_path):
    from test_watch import Watch

    root = write_tree(tmp_path / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    w = Watch(root, db_path)
    try:
        r = gbrain("sync-forget", str(root), "--db", str(db_path))
        assert r.returncode == 1 and b"stop it first" in r.stderr and b"nothing was forgotten" in r.stderr, r.stderr
        with Brain.open(db_path) as b:
            pg = is_postgres(b.conn)
        if pg:
            listed = json.loads(_ok(gbrain("sync-clients", "--json", "--db", str(db_path))))
            assert [c["watching"] for c in listed] == [True], listed
    finally:
        w.stop()
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT count(*) FROM sync_root").fetchone()[0] == 1  # nothing forgotten
    _ok(gbrain("sync-forget", str(root), "--db", str(db_path)))


def _as_machine(key: str, *args: str) -> subprocess.CompletedProcess:
    """``gbrain ARGS`` in a process whose machine key is ``key`` (another machine of one image)."""
    code = f"import sys; from gbrain.sync import engine; engine.machine_key = lambda: {key!r}; from gbrain.entry import main; sys.argv[0] = 'gbrain'; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, timeout=120)


def test_a_folder_another_machine_syncs_under_the_same_client_is_refused_until_forgotten(db_path, tmp_path):
    """Trial 69's two containers, without either's watch running: the machine key recorded with
    the client (`sync_root.machine`) refuses the other machine's sync and watch (exit 1, nothing
    changed), saying what to do; `sync-forget` lets it take the folder over (a first sync)."""
    root = write_tree(tmp_path / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    db = str(db_path)
    _ok(gbrain("sync", str(root), "--db", db))
    mine = engine_mod.machine_key()
    (root / "people/ana.md").write_text("# Ana\n\nEdited on machine B.\n")
    for cmd in (("sync", str(root)), ("watch", str(root))):
        r = _as_machine("b0b0b0b0", *cmd, "--db", db)
        err = r.stderr.decode()
        assert r.returncode == 1 and "another machine" in err and f"its machine key is {mine}" in err, err
        assert "gbrain sync-forget" in err and ("host name" in err or "brain of its own" in err), err
    with Brain.open(db_path) as b:
        assert b.get_text("people/ana") == "# Ana\n\nHello.\n"  # nothing imported
    _ok(_as_machine("b0b0b0b0", "sync-forget", str(root), "--db", db))
    r = _as_machine("b0b0b0b0", "sync", str(root), "--db", db, "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 3 and [c["kind"] for c in rep["conflicts"]] == ["no-base"], r.stderr  # its edit kept in a copy
    assert (root / rep["conflicts"][0]["copy_path"]).read_text() == "# Ana\n\nEdited on machine B.\n"
    listed = json.loads(_ok(gbrain("sync-clients", "--json", "--db", db)))
    assert [(c["machine"], c["this_machine"]) for c in listed] == [("b0b0b0b0", False)], listed
    r = gbrain("sync", str(root), "--db", db)  # now this machine is the other one
    assert r.returncode == 1 and b"its machine key is b0b0b0b0" in r.stderr, r.stderr


def test_an_import_on_another_machine_leaves_the_clients_base_alone(db_path, tmp_path):
    """`gbrain import` records the folder's files as its client's base (so a later sync sees no
    conflict); under another machine's client (one id) it would replace that machine's base with
    this folder's hashes. It imports the notes, and records no base then."""
    root = write_tree(tmp_path / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    db = str(db_path)
    _ok(gbrain("sync", str(root), "--db", db))
    with Brain.open(db_path) as b:
        before = [tuple(r) for r in b.conn.execute("SELECT client, path, base_hash FROM sync_state ORDER BY path").fetchall()]
    (root / "people/bo.md").write_text("# Bo\n")
    (root / "people/ana.md").write_text("# Ana\n\nEdited on machine B.\n")
    _ok(_as_machine("b0b0b0b0", "import", str(root), "--db", db))
    with Brain.open(db_path) as b:
        assert b.get_text("people/bo") == "# Bo\n"
        assert [tuple(r) for r in b.conn.execute("SELECT client, path, base_hash FROM sync_state ORDER BY path").fetchall()] == before


@pytest.mark.pg_empty
def test_clients_bound_before_v80_are_kept_and_adopted_by_the_first_machine_that_syncs(db_path, tmp_path):
    """A brain at SQLite v79 / Postgres v87 (no `sync_root.machine`) upgraded keeps its clients
    and their bases, machine unknown; the first machine that syncs the folder adopts it (its merge
    base still there: an offline edit merges), and another machine is then refused."""
    from conftest import brain_at_version

    root = write_tree(tmp_path / "vault", {"notes/a.md": "one\ntwo\nthree\n"})
    with brain_at_version(db_path, sqlite=79, postgres=87) as b:
        c = b.conn
        with b.transaction():  # (as v79 left it: brain_at_version adds the column this gbrain's binding writes)
            c.execute("ALTER TABLE sync_root DROP COLUMN machine")
        assert "machine" not in {r[0] for r in c.execute("SELECT * FROM sync_root LIMIT 0").description}  # (v79's table)
        client = engine_mod.sync_client(c, root)
        with b.transaction():  # (what that gbrain's bind and sync left: the binding and the base)
            c.execute("INSERT INTO sync_root(id, client, root, cursor) VALUES (1, ?, ?, 0)", (client, str(root)))
            b.put("notes/a", "one\ntwo\nthree\n")
            row = c.execute("SELECT content_hash FROM pages WHERE slug = 'notes/a'").fetchone()
            c.execute("INSERT INTO sync_state(client, path, size, mtime_ns, disk_hash, base_hash) VALUES (?, 'notes/a.md', 0, 0, ?, ?)",
                      (client, row[0], row[0]))
            c.execute("UPDATE sync_root SET cursor = (SELECT COALESCE(MAX(seq), 0) FROM change_log)")
    with Brain.open(db_path) as b:
        rows = [tuple(r) for r in b.conn.execute("SELECT client, root, machine FROM sync_root").fetchall()]
        assert rows == [(client, str(root), "")], rows
        b.put("notes/a", "one brain\ntwo\nthree\n")
    (root / "notes/a.md").write_text("one\ntwo\nthree folder\n")
    rep = json.loads(_ok(gbrain("sync", str(root), "--json", "--db", str(db_path))))
    assert rep["merged"] == ["notes/a.md"] and not rep["conflicts"], rep  # the base kept across the upgrade
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT machine FROM sync_root").fetchone()[0] == engine_mod.machine_key()
    r = _as_machine("b0b0b0b0", "sync", str(root), "--db", str(db_path))
    assert r.returncode == 1 and b"another machine" in r.stderr, r.stderr


def test_a_machine_key_made_from_a_random_number_is_not_recorded(db_path, tmp_path, monkeypatch):
    """No /etc/machine-id and no MAC address: ``uuid.getnode`` gives a random number, another on
    every start; recording it would refuse this machine's own next sync. Nothing is recorded or
    checked then."""
    monkeypatch.setattr(engine_mod, "machine_key_stable", lambda: False)
    root = write_tree(tmp_path / "vault", {"a.md": "# A\n"})
    _ok(gbrain("sync", str(root), "--db", str(db_path)))
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT machine FROM sync_root").fetchone()[0] == ""
    monkeypatch.setattr(engine_mod, "machine_key", lambda: "c0c0c0c0")
    _ok(gbrain("sync", str(root), "--db", str(db_path)))


@pytest.mark.engine_free
def test_machine_key_stable_says_when_the_key_is_random(monkeypatch, tmp_path):
    import builtins
    import uuid

    real_open = builtins.open

    def no_ids(f, *a, **k):
        if str(f) in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
            raise FileNotFoundError(f)
        return real_open(f, *a, **k)

    monkeypatch.setattr(builtins, "open", no_ids)
    for node, stable in ((0x0242AC110002, True), (0x0242AC110002 | (1 << 40), False)):
        monkeypatch.setattr(engine_mod, "_MACHINE_KEY", [])
        monkeypatch.setattr(engine_mod, "_MACHINE_RANDOM", [])
        monkeypatch.setattr(uuid, "getnode", lambda n=node: n)
        assert engine_mod.machine_key_stable() is stable
        assert len(engine_mod.machine_key()) == 8


def test_an_import_on_another_machine_says_plainly_why_renames_were_not_paired(db_path, tmp_path):
    """The import's rename pairing (`importer._pair_moves`) bound the sync engine, whose refusal of
    another machine's client ("... Nothing was changed. ... run `gbrain sync-forget` ...") came
    back as the import's warning, inside an import that went on to write pages, followed by "that
    sync or watch pairs them" (none ran). The other machine's base is its folder's, not this one's:
    nothing to pair against; the warning says so in a line of its own."""
    root = write_tree(tmp_path / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    db = str(db_path)
    _ok(gbrain("sync", str(root), "--db", db))
    (root / "people/ana.md").rename(root / "people/ana-b.md")
    r = _as_machine("b0b0b0b0", "import", str(root), "--db", db)
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "renames were not paired" in err and "another machine" in err, err
    assert "Nothing was changed" not in err and "that sync or watch" not in err, err
    with Brain.open(db_path) as b:
        assert b.get_text("people/ana-b") == "# Ana\n\nHello.\n"  # imported as a new page, as an unbound folder's


def test_sync_forget_names_a_folder_with_control_characters_escaped_on_one_line(db_path, tmp_path):
    """Every error is one line: a target holding a newline is named with it escaped (`slugs.shown`),
    and a target written as a client id (`host:/folder`) that no client has is named as given,
    not as a folder under the working directory."""
    root = write_tree(tmp_path / "vault", {"a.md": "# A\n"})
    db = str(db_path)
    _ok(gbrain("sync", str(root), "--db", db))
    r = gbrain("sync-forget", str(tmp_path / "x\ny"), "--db", db)
    err = r.stderr.decode()
    assert r.returncode in (1, 2) and err.count("\n") == 1 and "x\\u000ay" in err, err
    r = gbrain("sync-forget", "otherhost:/srv/vault", "--db", db)
    err = r.stderr.decode()
    assert r.returncode in (1, 2) and "otherhost:/srv/vault" in err and "/otherhost:" not in err, err  # (was: /cwd/otherhost:/srv/vault)


def test_sync_forget_of_a_folder_that_does_not_sync_is_exit_1_on_either_engine(db_path, tmp_path):
    """A folder the brain does not sync with is a target not found (exit 1, as `get` of a page no
    brain has), the same on both engines: SQLite, bound to another folder, said exit 2 where
    Postgres said 1. The message names the folder that does sync (SQLite), and nothing is forgotten."""
    root = write_tree(tmp_path / "vault", {"a.md": "# A\n"})
    other = write_tree(tmp_path / "other", {"b.md": "# B\n"})
    db = str(db_path)
    _ok(gbrain("sync", str(root), "--db", db))
    r = gbrain("sync-forget", str(other), "--db", db, "--json")
    assert r.returncode == 1 and json.loads(r.stdout)["kind"] == "not_found", r.stdout
    with Brain.open(db_path) as b:
        assert [tuple(x) for x in b.conn.execute("SELECT root FROM sync_root").fetchall()] == [(str(root),)]


def test_base_rows_left_without_their_binding_are_no_base_for_the_next_sync(db_path, tmp_path):
    """`sync-forget` of another host's client (Postgres: `otherhost:/folder`) is not refused by a
    one-shot `gbrain sync` of it running there (no LISTEN connection, no lock of this machine):
    that sync's rounds after the forget write `sync_state` rows under a binding that is gone.
    The next sync binds the folder again: a first sync, as the forget promised and as import
    reads it (`importer._Recorded`: no binding, no base), not a sync against those rows (a note
    deleted meanwhile was trashed instead of written back; the rows, listed nowhere, held their
    versions from `history-prune`)."""
    root = write_tree(tmp_path / "vault", {"a.md": "# A\n", "b.md": "# B\n"})
    db = str(db_path)
    _ok(gbrain("sync", str(root), "--db", db))
    with Brain.open(db_path) as b:
        with b.transaction():  # (the binding forgotten, the rows a round wrote after it left)
            b.conn.execute("DELETE FROM sync_root")
    (root / "b.md").unlink()
    rep = json.loads(_ok(gbrain("sync", str(root), "--json", "--db", db)))
    assert (root / "b.md").read_text() == "# B\n", rep  # a first sync writes the page back: nothing trashed
    with Brain.open(db_path) as b:
        assert b.get_text("b") == "# B\n"
    listed = json.loads(_ok(gbrain("sync-clients", "--json", "--db", db)))
    assert [c["paths"] for c in listed] == [2], listed
