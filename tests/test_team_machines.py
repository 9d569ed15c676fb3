"""Trial 69: two machines whose sync clients have the same id (`host:/folder`: one host name, one
folder path, as two containers or VMs from one image, `/srv/vault` on a host named `devbox`).

They share one base and one change-log cursor: each machine's watch applied the change-log rows
meant for the other, so neither folder received the other's edits, and a restart of one watch
imported its older files over the other's edits (silently reverting them in the brain; only the
history kept them). A sync or watch now refuses to start while a watch of another machine syncs
a folder with the same client id (the LISTEN connection's `application_name` names the client
and the machine: `pg.Listener`, `SyncEngine._other_machine`).

Postgres only (a SQLite brain has one client): `pg_url`.
"""
from __future__ import annotations

import pytest
from conftest import write_tree

from gbrain.core.brain import Brain
from gbrain.sync import engine as engine_mod
from gbrain.sync.engine import SyncEngine, SyncError

pytestmark = pytest.mark.engine_free  # a brain of its own (pg_url): runs in the SQLite run only (conftest)


def test_a_second_machine_with_the_same_host_name_and_folder_path_is_refused_while_the_first_watches(pg_url, tmp_path, monkeypatch):
    from test_watch import Watch

    vault = write_tree(tmp_path / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    w = Watch(vault, pg_url)  # machine A: this machine
    try:
        # machine B: the same host name and folder path, its own /tmp (so its own sync lock file)
        # and its own machine identity
        other_tmp = tmp_path / "machine-b-tmp"
        other_tmp.mkdir()
        monkeypatch.setattr(engine_mod, "LOCK_TEMP", str(other_tmp))
        monkeypatch.setenv("TMPDIR", str(other_tmp))
        import tempfile

        monkeypatch.setattr(tempfile, "tempdir", None)
        monkeypatch.setattr(engine_mod, "machine_key", lambda: "machine-b")
        b = Brain.open(pg_url)
        try:
            eng = SyncEngine(b, vault, log=lambda s: None)
            with pytest.raises(SyncError, match="another machine") as e:
                eng.bind()
            assert "host name" in str(e.value), e.value
            eng.close()
        finally:
            b.close()
        assert w.p.poll() is None  # machine A's watch goes on
    finally:
        w.stop()


def test_the_same_machine_is_not_refused_by_a_listener_of_its_own(pg_url, tmp_path):
    """A watch's own LISTEN connection (and one a killed watch of this machine left on the
    server) is no other machine: a sync of another folder of this machine, and the watch's own
    binding, go on."""
    from test_watch import Watch

    vault = write_tree(tmp_path / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    w = Watch(vault, pg_url)
    try:
        b = Brain.open(pg_url)
        try:
            other = write_tree(tmp_path / "other", {"people/bo.md": "# Bo\n"})
            eng = SyncEngine(b, other, log=lambda s: None)
            eng.bind()
            eng.sync()
            eng.close()
        finally:
            b.close()
        assert w.p.poll() is None
    finally:
        w.stop()


def test_another_roles_watch_is_seen_by_a_role_without_pg_read_all_stats(pg_server, pg_url, tmp_path, monkeypatch):
    """The machine check reads another session's ``application_name`` from ``pg_stat_activity``:
    Postgres shows it (and ``datname``) for every session to every role; only ``query``, ``state``
    and the like need ``pg_read_all_stats`` or membership (trial 69's unchecked assumption). Two
    teammates with roles of their own, neither a superuser nor in ``pg_read_all_stats``: machine
    A's watch connection (role ``gb_team_a``) still refuses machine B's sync (role ``gb_team_b``)."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    admin = psycopg.connect(pg_server, autocommit=True)
    db = conninfo_to_dict(pg_url)["dbname"]
    roles = ("gb_team_a", "gb_team_b")

    def url(role: str) -> str:  # (pg_url as this role: postgresql://user@/db?host=…)
        from urllib.parse import urlsplit, urlunsplit

        u = urlsplit(pg_url)
        return urlunsplit(u._replace(netloc=f"{role}:pw@" + u.netloc.rsplit("@", 1)[-1]))

    vault = write_tree(tmp_path / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    Brain.open(pg_url).close()  # (the schema made by the owner)
    for r in roles:
        admin.execute(f"DROP ROLE IF EXISTS {r}")
        admin.execute(f"CREATE ROLE {r} LOGIN PASSWORD 'pw' NOSUPERUSER")
    with psycopg.connect(pg_url, autocommit=True) as own:
        for stmt in ("GRANT ALL ON SCHEMA public TO {r}", "GRANT ALL ON ALL TABLES IN SCHEMA public TO {r}",
                     "GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {r}", "GRANT ALL ON ALL FUNCTIONS IN SCHEMA public TO {r}"):
            own.execute(stmt.format(r=", ".join(roles)))
    admin.execute(f'GRANT ALL ON DATABASE "{db}" TO {", ".join(roles)}')
    a_conn = None
    try:
        b_brain = Brain.open(url("gb_team_b"))
        try:
            assert not b_brain.conn.execute("SELECT pg_has_role('pg_read_all_stats', 'MEMBER')").fetchone()[0]
            eng = SyncEngine(b_brain, vault, log=lambda s: None)
            # machine A's watch: its LISTEN connection, named as machine A names it, as its own role
            monkeypatch.setattr(engine_mod, "machine_key", lambda: "machine-a")
            a_conn = psycopg.connect(url("gb_team_a"), autocommit=True, application_name=eng.listen_name())
            monkeypatch.setattr(engine_mod, "machine_key", lambda: "machine-b")
            # B sees A's session's name, though not its query
            seen = b_brain.conn.execute("SELECT application_name, query FROM pg_stat_activity WHERE usename = 'gb_team_a'").fetchall()
            assert [tuple(r) for r in seen] == [(eng.listen_name().rsplit(":", 1)[0] + ":machine-a", "<insufficient privilege>")], seen
            with pytest.raises(SyncError, match="another machine"):
                eng.bind()
            eng.close()
        finally:
            b_brain.close()
    finally:
        if a_conn is not None:
            a_conn.close()
        with psycopg.connect(pg_url, autocommit=True) as own:
            for r in roles:
                own.execute(f"DROP OWNED BY {r}")
        for r in roles:
            admin.execute(f"DROP ROLE IF EXISTS {r}")
        admin.close()


def test_forgetting_a_client_another_machines_watch_syncs_is_refused(pg_url, tmp_path, monkeypatch):
    """`gbrain sync-forget` of a client whose watch runs on another machine (seen through its
    LISTEN connection's name) is refused, nothing forgotten; once it stops, the client goes."""
    import psycopg

    from gbrain.sync.clients import forget, list_clients

    vault = write_tree(tmp_path / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    with Brain.open(pg_url) as b:
        eng = SyncEngine(b, vault, log=lambda s: None)
        eng.bind()
        eng.sync()
        eng.close()
        monkeypatch.setattr(engine_mod, "machine_key", lambda: "machine-a")
        name = eng.listen_name()
        monkeypatch.setattr(engine_mod, "machine_key", lambda: "machine-b")
        with psycopg.connect(pg_url, autocommit=True, application_name=name):
            assert [c["watching"] for c in list_clients(b)] == [True]
            with pytest.raises(SyncError, match="machine machine-a's `gbrain watch` is syncing .*nothing was forgotten"):
                forget(b, eng.client)
            assert len(list_clients(b)) == 1
        from test_watch import wait_for

        # (the server ends a closed connection's backend a moment later: until then it is listed)
        wait_for(lambda: not b.conn.execute("SELECT 1 FROM pg_stat_activity WHERE application_name = ?", (name,)).fetchone(),
                 "the closed connection's backend to end")
        assert forget(b, eng.client)["paths"] == 1
        assert list_clients(b) == []
