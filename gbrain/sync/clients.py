"""The sync clients of a brain: list them (``gbrain sync-clients``) and forget one
(``gbrain sync-forget``).

A sync client is a folder that syncs with the brain (``sync_root`` and its ``sync_state`` rows,
``client``: ``''`` on SQLite, ``host:/absolute/folder`` on Postgres: ``storage/db.py: sync_client``).
While its rows stay, ``history-prune`` keeps one version for each of its base hashes and the
change log is kept for it until it expires (``sync_client_expire_days``, 30); forgetting it drops
them, and the folder's next sync is a first sync (nothing lost: an equal file stays, a differing
one becomes a conflict copy).
"""
from __future__ import annotations

import os
import re
import socket

from ..core.brain import Brain
from ..errors import NotFound
from ..page.slugs import cmd_arg, shown
from ..storage.db import forget_client, is_postgres, sync_client
from . import engine
from .engine import SyncError, client_tag

#: a client id as `sync-clients` lists it on Postgres (``host:/folder``)
_CLIENT_ID = re.compile(r"[^/\s:]+:/")


def watchers(conn, client: str) -> list[dict]:
    """The LISTEN connections of the ``gbrain watch`` processes syncing ``client`` (Postgres:
    their ``application_name``, :meth:`engine.SyncEngine.listen_name`, in ``pg_stat_activity``,
    any machine): each ``{"backend": its server process id, "pid": the watch's process id (None
    when unreadable), "machine": its machine key, "addr": its client address ('' a Unix socket),
    "idle_s": seconds since its last state change, "gone": a watch of this machine whose process is
    gone (:func:`_gone_here`) and whose TCP socket is proven closed here (:func:`_socket_closed_here`:
    never over a Unix socket, never when the process that holds it may be of another pid namespace)}``; ``[]`` on SQLite (its sync lock tells)."""
    if not is_postgres(conn):
        return []
    rows = conn.execute("SELECT pid, application_name, COALESCE(host(client_addr), ''), EXTRACT(EPOCH FROM now() - state_change), "
                        "COALESCE(host(inet_client_addr()), ''), client_port, inet_client_port() FROM pg_stat_activity "
                        "WHERE datname = current_database() AND application_name LIKE ?",
                        (f"gbrain-listen:%:{client_tag(client)}:%",)).fetchall()
    mine = engine.machine_key()
    out = []
    local = None
    for backend, name, addr, idle, own, port, own_port in rows:
        parts = str(name).split(":")
        pid = int(parts[1]) if len(parts) == 4 and parts[1].isdigit() else None
        w = {"backend": int(backend), "pid": pid, "machine": parts[-1], "addr": str(addr), "idle_s": float(idle or 0)}
        gone = False
        if w["machine"] == mine and addr and addr == own and _gone_here(pid):
            local = _local_tcp() if local is None else local
            gone = _socket_closed_here(local, str(addr), port, str(own), own_port)
        w["gone"] = gone
        out.append(w)
    return out


#: the states (``/proc/net/tcp``'s hex ``st``) of a TCP socket a process may still hold: ESTABLISHED,
#: SYN_SENT, SYN_RECV, CLOSE_WAIT (the peer closed, the process has not yet)
_HELD_STATES = frozenset({"01", "02", "03", "08"})


def _local_tcp() -> set:
    """The local ends ``(ip_address, port)`` of this network namespace's TCP sockets some process holds
    (``/proc/net/tcp``, ``tcp6``; an IPv4-mapped IPv6 address as IPv4); an empty set where they
    cannot be read (then nothing is proven closed)."""
    import ipaddress

    out = set()
    for f, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            lines = open(f).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            try:
                cols = line.split()
                if cols[3] not in _HELD_STATES or cols[9] == "0":
                    continue  # closed, its end left to the kernel (TIME_WAIT, FIN_WAIT…: no inode): no process holds it
                hexip, hexport = cols[1].split(":")
                raw = bytes.fromhex(hexip)
                raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))  # each 32-bit word in host (little-endian) order
                ip = ipaddress.ip_address(raw)
                if ip.version == 6 and ip.ipv4_mapped:
                    ip = ip.ipv4_mapped
                out.add((ip, int(hexport, 16)))
            except (ValueError, IndexError):
                continue
    return out


def _socket_closed_here(local: set, addr: str, port, own: str, own_port) -> bool:
    """Whether a TCP connection from ``addr``:``port`` (as the server saw it) is proven closed on
    this machine: this process's own connection, from ``own``:``own_port``, is among ``local``
    (:func:`_local_tcp`: no address translation between here and the server, so an address the
    server sees is one of this network namespace's) and the other's is not (no process here holds
    it, and no other network namespace has this untranslated address). Any doubt: False, so that
    a live watch of another pid namespace (a container sharing this machine id and address) or
    one whose socket a process of it still holds is never ended. A Unix socket proves nothing."""
    import ipaddress

    def key(a, p):
        ip = ipaddress.ip_address(a.split("%")[0])
        if ip.version == 6 and ip.ipv4_mapped:
            ip = ip.ipv4_mapped
        return (ip, int(p))

    try:
        if not port or not own_port or not addr:
            return False
        return key(own, own_port) in local and key(addr, port) not in local
    except (ValueError, TypeError):
        return False


def _gone_here(pid: int | None) -> bool:
    """Whether the process ``pid`` of this machine is no ``gbrain`` process (gone, or its id taken
    by another program since): its LISTEN connection outlived it (the server has not noticed
    yet; a socket some other process still holds). Any doubt (no pid, /proc unreadable): False."""
    if pid is None or pid <= 0:
        return False
    if os.path.isdir("/proc/self"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                return b"gbrain" not in f.read()
        except FileNotFoundError:
            return True
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def watching(conn, client: str) -> list[str]:
    """The machine keys of the ``gbrain watch`` processes syncing ``client`` now (:func:`watchers`,
    those of this machine whose process is gone left out); ``[]`` on SQLite (its sync lock tells)."""
    return sorted({w["machine"] for w in watchers(conn, client) if not w["gone"]})


def list_clients(brain: Brain) -> list[dict]:
    """Every sync client of the brain, oldest binding first: ``client`` (``''`` on SQLite),
    ``root`` (its folder), ``machine`` (the recorded machine key, ``''`` unknown), ``this_machine``
    (whether it is this machine's key), ``bound_at``, ``synced_at`` (the last sync or watch round
    that recorded it: ISO-8601 UTC, None never), ``cursor`` (the last change-log row applied; -1:
    expired), ``behind`` (change-log rows written after it, None when expired), ``paths`` (its base
    rows), ``watching`` (a watch of it runs now: Postgres; None on SQLite, which cannot tell).
    A pure read."""
    c = brain.conn
    mine = engine.machine_key()
    top = c.execute("SELECT COALESCE(MAX(seq), 0) FROM change_log").fetchone()[0]
    out = []
    for r in c.execute("SELECT client, root, machine, bound_at, synced_at, cursor, "
                       "(SELECT count(*) FROM sync_state s WHERE s.client = r.client) AS paths FROM sync_root r ORDER BY id").fetchall():
        cur = int(r["cursor"])
        out.append({
            "client": r["client"], "root": r["root"], "machine": r["machine"], "this_machine": r["machine"] == mine,
            "bound_at": r["bound_at"], "synced_at": r["synced_at"], "cursor": cur,
            "behind": None if cur < 0 else c.execute("SELECT count(*) FROM change_log WHERE seq > ? AND seq <= ?", (cur, top)).fetchone()[0],
            "paths": int(r["paths"]),
            "watching": bool(watching(c, r["client"])) if is_postgres(c) else None,
        })
    return out


def _which(brain: Brain, target: str) -> tuple[str, str]:
    """``(client, root)`` of the client ``target`` names: a client id as :func:`list_clients`
    lists it (Postgres), else a folder, whose client on this machine it is. Raises
    :class:`NotFound` (exit 1: none binds it, a SQLite brain bound to another folder, or a
    ``host:/folder`` no client has, named as given)."""
    c = brain.conn
    rows = {r["client"]: r["root"] for r in c.execute("SELECT client, root FROM sync_root").fetchall()}
    listed = "; `gbrain sync-clients` lists the folders that do" if rows else " (no folder syncs with it)"
    if is_postgres(c) and target in rows:
        return target, rows[target]
    if _CLIENT_ID.match(target) and not os.path.lexists(target):  # a client id no client has, not a folder here
        raise NotFound(f"no sync client {shown(target)} syncs with {brain.path}{listed}")
    root = os.path.abspath(os.path.expanduser(target))
    client = sync_client(c, root)
    if client in rows:
        if not client and rows[client] != root:
            raise NotFound(f"this brain syncs with {shown(rows[client])}, not {shown(root)}; `gbrain sync-forget {cmd_arg(rows[client])}` forgets that folder")
        return client, rows[client]
    raise NotFound(f"{shown(root)} does not sync with {brain.path}{listed}")


def forget(brain: Brain, target: str) -> dict:
    """Forget the sync client ``target`` names (:func:`_which`): its base hashes and binding are
    dropped, so ``history-prune`` keeps nothing for it and the change log is trimmed past it
    (:func:`gbrain.storage.db.forget_client`); the folder's files are left as they are and its next
    sync is a first sync. Returns ``{"client", "root", "paths", "log_rows", "ended"}`` (``ended``:
    LISTEN connections a killed watch of this machine left on the server, ended: :func:`_end_gone`).

    Raises :class:`SyncError` (exit 1, nothing forgotten) while a ``gbrain watch`` of the client
    runs (any machine's, seen on Postgres through its LISTEN connection, :func:`watchers`; one of
    this machine whose process is gone is no running watch) or a sync or watch of this machine
    holds the folder's sync lock; :class:`NotFound` from :func:`_which`."""
    client, root = _which(brain, target)
    eng = None
    if not client or client.partition(":")[0] == socket.gethostname():
        # this machine's folder: its sync lock first (a sync or watch of it holds it: refused), so
        # none of this machine starts before the rows are gone
        eng = engine.SyncEngine(brain, root)
        eng.surface = "sync-forget"  # (what a sync refused meanwhile names)
        try:
            eng._lock()
        except SyncError as e:
            eng.close()
            raise SyncError(str(e).split("; stop it first")[0] + "; stop it first, then forget the folder (nothing was forgotten)") from None
    try:
        ws = watchers(brain.conn, client)
        live = [w for w in ws if not w["gone"]]
        if live:
            raise SyncError(_still_watched(live, client or root, brain.path))
        ended = _end_gone(brain.conn, [w for w in ws if w["gone"]])
        with brain.transaction():
            got = forget_client(brain.conn, client)
        if eng is not None:
            from . import gitstate

            gitstate.save(eng._git_key(), None)  # (the git state recorded for its deletions: gone with the base)
    finally:
        if eng is not None:
            eng.close()
    return {"client": client, "root": root, **got, "ended": ended}


#: how long after a machine's last sign of life the server ends its watch's LISTEN connection
#: (the session's TCP keepalives, :data:`gbrain.storage.pg.LISTEN_KEEPALIVES`: idle + count ×
#: interval), said when another machine's watch refuses a forget
GONE_AFTER_S = 60 + 6 * 10


def _still_watched(live: list[dict], what: str, db) -> str:
    """Why ``sync-forget`` refuses: the watches of ``live`` (:func:`watchers`) are alive as far as
    this machine can tell, each named (this machine's by process id, another's by its machine key
    and address) with what to do."""
    mine = engine.machine_key()
    here = [w for w in live if w["machine"] == mine]
    away = [w for w in live if w["machine"] != mine]
    who, how = [], []
    if here:
        who.append("this machine's")
        pids = ", ".join(str(w["pid"]) for w in here if w["pid"] is not None)
        if pids:
            how.append(f"process {pids}")
    for key in sorted({w["machine"] for w in away}):
        who.append(f"machine {key}'s")
    for w in away:
        how.append(f"machine {w['machine']}'s connected from {w['addr'] or 'a Unix socket'}, quiet for {w['idle_s']:,.0f} s")
    detail = f" ({'; '.join(how)})" if how else ""
    msg = (f"{' and '.join(who)} `gbrain watch` {'is' if len(live) == 1 else 'are'} syncing {shown(what)} with {db}{detail}; "
           "stop it first, then forget the folder (nothing was forgotten)")
    if here and not away:
        ids = ", ".join(str(w["backend"]) for w in here)
        msg += (f"; a connection whose watch was killed while another process held its socket (or that another pid namespace's "
                f"watch holds) is not ended here: end it on the server if you know it dead: "
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN ({ids})")
    if away:
        ids = ", ".join(str(w["backend"]) for w in away)
        msg += (f"; a machine that crashed or lost its network keeps its connection on the server until the server's TCP keepalives "
                f"give up on it (about {GONE_AFTER_S // 60} minutes after its last sign of life for a watch of this gbrain), "
                f"or until someone ends it on the server: SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN ({ids})")
    return msg


def _end_gone(conn, gone: list[dict]) -> int:
    """End the LISTEN connections of :func:`watchers`' ``gone`` (this machine's watches whose
    process is gone: nothing reads them) so that no other process takes them for a running watch.
    Returns how many the server ended; one it refuses (another role's) is left: harmless."""
    ended = 0
    for w in gone:
        try:
            ended += bool(conn.execute("SELECT pg_terminate_backend(?)", (w["backend"],)).fetchone()[0])
        except Exception:  # (no permission: the connection does nothing, the forget goes on)
            continue
    return ended
