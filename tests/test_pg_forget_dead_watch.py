"""``gbrain sync-forget`` while a dead watch's LISTEN connection is still on the Postgres server.

A watch is seen running through its LISTEN connection (``pg_stat_activity``, its
``application_name`` naming its process, client and machine: ``SyncEngine.listen_name``). A
killed watch's connection closes with its process when the socket does (a ``kill -9`` on this
machine: gone at once, tried); but a socket some other process still holds, or a machine that
crashed or lost its network, leaves the connection on the server until the server notices, and
before, `sync-forget` refused ("this machine's `gbrain watch` is syncing …") all that time (Linux's
default keepalive: 2 h 11 min). Now: a connection of this machine whose process is gone is ended
and the forget goes on; another machine's is refused with what to do, and a watch's LISTEN session
asks the server to probe it every 10 s after 60 s idle (``pg.LISTEN_KEEPALIVES``).
A real watch, a real server (pgserver), connections left behind as the server sees them."""
from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

psycopg = pytest.importorskip("psycopg")

from conftest import gbrain_in_process as gbrain, write_tree  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402

pytestmark = pytest.mark.engine_free  # names its own Postgres brain (pg_url): the SQLite run only


def _listens(admin) -> list[str]:
    return [r[0] for r in admin.execute("SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'gbrain-listen:%'").fetchall()]


def _left_behind(pg_url: str, name: str):
    """A LISTEN connection named ``name`` that nothing reads: as the server sees a killed watch's
    connection whose socket another process holds, or a crashed machine's."""
    c = psycopg.connect(pg_url, autocommit=True, application_name=name)
    c.execute("LISTEN gbrain_changes")
    return c


def test_a_killed_watchs_connection_left_on_the_server_does_not_block_forget(pg_server, pg_url, tmp_path):
    from test_watch import Watch

    root = write_tree(tmp_path / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    admin = psycopg.connect(pg_server, autocommit=True)
    w = Watch(root, pg_url)
    try:
        [name] = _listens(admin)
        assert name.split(":")[1] == str(w.p.pid), name
        stray = _left_behind(pg_url, name)
    finally:
        w.p.send_signal(signal.SIGKILL)
        w.p.wait()
    try:
        r = gbrain("sync-forget", str(root), "--db", pg_url)
        err = r.stderr.decode()
        # refused since rwatchx: a connection whose socket a live process holds (here over a Unix
        # socket) cannot be told from a live watch of another pid namespace (see below); the
        # message says how to end it by hand
        assert r.returncode == 1 and "nothing was forgotten" in err and "pg_terminate_backend" in err, err
        assert _listens(admin) == [name]  # not ended
        with Brain.open(pg_url) as b:
            assert b.conn.execute("SELECT count(*) FROM sync_root").fetchone()[0] == 1
    finally:
        stray.close()
        admin.close()


def test_another_machines_connection_refuses_forget_saying_what_to_do(pg_server, pg_url, tmp_path):
    from gbrain.sync.engine import SyncEngine

    root = write_tree(tmp_path / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    r = gbrain("sync", str(root), "--db", pg_url)
    assert r.returncode == 0, r.stderr
    with Brain.open(pg_url) as b:
        eng = SyncEngine(b, root)
        try:
            name = eng.listen_name().rsplit(":", 1)[0] + ":b0b0b0b0"  # its pid on that machine: unknown here
        finally:
            eng.close()
    stray = _left_behind(pg_url, name)
    try:
        r = gbrain("sync-forget", str(root), "--db", pg_url)
        err = r.stderr.decode()
        assert r.returncode == 1 and "machine b0b0b0b0's `gbrain watch`" in err and "nothing was forgotten" in err, err
        assert "keepalives" in err and "pg_terminate_backend" in err, err
        listed = json.loads(gbrain("sync-clients", "--json", "--db", pg_url).stdout)
        assert [c["watching"] for c in listed] == [True], listed
    finally:
        stray.close()
    with Brain.open(pg_url) as b:
        assert b.conn.execute("SELECT count(*) FROM sync_root").fetchone()[0] == 1  # nothing forgotten


def test_a_connection_naming_a_live_gbrain_process_of_this_machine_is_a_running_watch(pg_url, tmp_path):
    from gbrain.sync import clients
    from gbrain.sync.engine import SyncEngine

    root = write_tree(tmp_path / "vault", {"a.md": "# A\n"})
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)  # gbrain watch"])
    dead = subprocess.Popen([sys.executable, "-c", "pass  # gbrain watch"])
    dead.wait()  # (its pid: a process gone)
    try:
        with Brain.open(pg_url) as b:
            eng = SyncEngine(b, root)
            try:
                base = eng.listen_name().split(":")
                client = eng.client
            finally:
                eng.close()
            conns = [_left_behind(pg_url, ":".join([base[0], str(pid), *base[2:]])) for pid in (live.pid, dead.pid, 0)]
            try:
                seen = {w["pid"]: w["gone"] for w in clients.watchers(b.conn, client)}
                by_pid = [clients._gone_here(p) for p in (live.pid, dead.pid, None)]
            finally:
                for c in conns:
                    c.close()
    finally:
        live.kill()
        live.wait()
    # over a Unix socket nothing proves a connection closed: each is a running watch (rwatchx)
    assert seen == {live.pid: False, dead.pid: False, 0: False}, seen
    # the process test alone: a live gbrain process; a gone one; a pid that says nothing: doubt
    assert by_pid == [False, True, False], by_pid


@pytest.mark.parametrize("url_options, want", [
    ("", {"tcp_keepalives_idle": "session", "tcp_keepalives_interval": "session", "tcp_keepalives_count": "session"}),
    ("-c tcp_keepalives_idle=5", {"tcp_keepalives_idle": "client", "tcp_keepalives_interval": "session", "tcp_keepalives_count": "session"}),
])
def test_the_listen_connection_asks_the_server_for_short_keepalives(pg_url, url_options, want):
    """The LISTEN session SETs the server-side keepalives once connected (a Unix socket, as here,
    ignores them; over TCP the server ends a crashed machine's connection ~2 min after its last
    sign of life). A URL's own options are kept and win."""
    from urllib.parse import quote

    from gbrain.storage.pg import Listener

    url = pg_url + (f"&options={quote(url_options)}" if url_options else "")
    lis = Listener(url)
    try:
        # (who set each: a Unix socket reads every one as 0, the value is not seen here)
        got = dict(lis._conn.execute("SELECT name, source FROM pg_settings WHERE name LIKE 'tcp_keepalives_%'").fetchall())
    finally:
        lis.close()
    assert got == want, got


def _unshared_pid_namespace(held: str) -> tuple[str, ...]:
    """The command prefix running a program in a pid namespace of its own (as a container does),
    its /proc and /tmp (where sync locks are) its own; skipped where this machine cannot make one.
    The folders under /tmp this run needs (this checkout, Python's prefix: a clone or a venv under
    /tmp, as a clean-clone CI makes) are bound back into the new /tmp from the old one, mounted at
    ``held`` (an empty folder outside /tmp) first: a tmpfs over /tmp hid them ("No module named gbrain")."""
    import shlex
    import shutil
    import sys
    from pathlib import Path

    keep = sorted({str(p) for p in (Path(__file__).resolve().parent.parent, Path(sys.prefix).resolve()) if str(p).startswith("/tmp/")})
    back = "".join(f" && mkdir -p {shlex.quote(k)} && mount --bind {shlex.quote(held + k[len('/tmp'):])} {shlex.quote(k)}" for k in keep)
    script = f"mount --bind /tmp {shlex.quote(held)} && mount -t tmpfs tmpfs /tmp{back} && exec \"$@\""
    pre = ("unshare", "--pid", "--fork", "--mount-proc", "--mount", "--kill-child", "sh", "-c", script, "sh")
    if not shutil.which("unshare") or subprocess.run([*pre, "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a pid namespace here (unshare)")
    return pre


def test_a_live_watch_in_another_pid_namespace_is_not_ended(pg_server, pg_url):
    """Two containers of one machine (one machine id, one address: a shared Unix socket or
    127.0.0.1) but each with its own pid namespace: a live watch in one names a process id that the
    other's /proc does not have (or has as another program). Before, `sync-forget` in the other
    took it for a killed watch, ENDED its live connection and forgot the folder under it."""
    import shutil
    import tempfile
    from pathlib import Path

    from test_watch import Watch

    top = Path(tempfile.mkdtemp(dir="/var/tmp"))  # (not under /tmp: the watch's /tmp is its own)
    (top / "held").mkdir()
    try:
        pre = _unshared_pid_namespace(str(top / "held"))
    except BaseException:  # (skipped: nothing made here is left behind)
        shutil.rmtree(top, ignore_errors=True)
        raise
    root = write_tree(top / "vault", {"people/ana.md": "# Ana\n\nHello.\n"})
    admin = psycopg.connect(pg_server, autocommit=True)
    w = Watch(root, pg_url, prefix=pre)
    try:
        [name] = _listens(admin)
        backend = admin.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s", (name,)).fetchone()[0]
        r = gbrain("sync-forget", str(root), "--db", pg_url)
        err = r.stderr.decode()
        assert r.returncode == 1 and "nothing was forgotten" in err, (r.stdout, err)
        assert admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (backend,)).fetchone()[0] == 1  # not ended
        with Brain.open(pg_url) as b:
            assert b.conn.execute("SELECT count(*) FROM sync_root").fetchone()[0] == 1  # nothing forgotten
    finally:
        w.kill()
        admin.close()
        shutil.rmtree(top, ignore_errors=True)


def test_a_tcp_connection_is_proven_closed_only_when_this_machine_has_no_socket_for_it():
    """The proof `sync-forget` asks before ending a connection (clients._socket_closed_here): this
    process's own connection seen with the address the server saw (no translation between), and
    none for the watch's address and port; a Unix socket (no address) never proves anything."""
    import socket

    from gbrain.sync.clients import _local_tcp, _socket_closed_here

    srv = socket.create_server(("127.0.0.1", 0))
    ours = socket.create_connection(srv.getsockname())
    theirs = socket.create_connection(srv.getsockname())
    closed = socket.create_connection(srv.getsockname())
    closed_port = closed.getsockname()[1]
    closed.close()
    try:
        local = _local_tcp()
        own = ours.getsockname()
        assert _socket_closed_here(local, "127.0.0.1", closed_port, *own) is True
        assert _socket_closed_here(local, "127.0.0.1", theirs.getsockname()[1], *own) is False  # held here: alive
        assert _socket_closed_here(local, "::ffff:127.0.0.1", closed_port, "::ffff:127.0.0.1", own[1]) is True  # mapped
        assert _socket_closed_here(local, "127.0.0.1", closed_port, "10.1.2.3", 5432) is False  # own not seen: translated
        assert _socket_closed_here(local, "", None, "", None) is False  # a Unix socket
    finally:
        for s in (ours, theirs, srv):
            s.close()


def _pooler(pg_url: str):
    """A stand-in for PgBouncer on 127.0.0.1: it refuses a client whose startup packet carries a
    parameter it does not know, ``options`` among them ("unsupported startup parameter: options",
    PgBouncer's ``ignore_startup_parameters`` empty by default), and passes every other one through
    to the server's Unix socket. Returns ``(url, stop)``."""
    import os
    import socket
    import struct
    import threading

    from psycopg.conninfo import conninfo_to_dict

    d = conninfo_to_dict(pg_url)
    path = os.path.join(d["host"], f".s.PGSQL.{d.get('port') or 5432}")
    srv = socket.create_server(("127.0.0.1", 0))
    socks = [srv]

    def pipe(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def serve(c):
        while True:
            n = struct.unpack("!I", c.recv(4, socket.MSG_WAITALL))[0]
            body = c.recv(n - 4, socket.MSG_WAITALL)
            if struct.unpack("!I", body[:4])[0] in (80877103, 80877104):  # SSL / GSS encryption asked: no
                c.sendall(b"N")
                continue
            break
        keys = body[4:].split(b"\0")[0:-2:2]
        if b"options" in keys:
            msg = b"SFATAL\0C08P01\0Munsupported startup parameter: options\0\0"
            c.sendall(b"E" + struct.pack("!I", len(msg) + 4) + msg)
            c.close()
            return
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        socks.extend((c, s))
        s.sendall(struct.pack("!I", n) + body)
        threading.Thread(target=pipe, args=(s, c), daemon=True).start()
        pipe(c, s)

    def accept():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(c,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    url = f"postgresql://{d.get('user', 'postgres')}@127.0.0.1:{srv.getsockname()[1]}/{d['dbname']}?sslmode=disable"

    def stop():
        for s in socks:
            try:
                s.close()
            except OSError:
                pass
    return url, stop


def test_the_listen_connection_goes_through_a_pooler_that_refuses_startup_options(pg_url):
    """The keepalives are asked with SET after the connection is made, not as startup ``options``:
    a pooler in session mode (PgBouncer), where LISTEN works, refuses a startup packet carrying
    ``options``, and a watch behind one never listened (it polled, warning at every retry)."""
    from gbrain.storage.pg import Listener

    url, stop = _pooler(pg_url)
    try:
        plain = psycopg.connect(url, autocommit=True)  # (the stand-in passes a plain client through)
        plain.close()
        lis = Listener(url)
        try:
            got = {k: lis._conn.execute(f"SHOW {k}").fetchone()[0] for k in ("tcp_keepalives_idle", "tcp_keepalives_interval", "tcp_keepalives_count")}
        finally:
            lis.close()
    finally:
        stop()
    assert got  # (behind the stand-in the server sees a Unix socket: it reads them as 0)
