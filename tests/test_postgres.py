"""gbrain on PostgreSQL + pgvector (gbrain/storage/pg.py), against a real server: the pgserver
wheel's Postgres 16 on a Unix socket (conftest: ``pg_server``/``pg_url``).

The CLI runs as a subprocess with ``--db postgresql://…``; results are compared with the same
commands on a SQLite brain of the same tree. ``--engine postgres`` runs other test files on
Postgres too (see docs/storage.md for which pass).
"""
from __future__ import annotations

import json
import math
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.storage import pg

from conftest import FIXTURE_BRAIN, ROOT, gbrain, gbrain_in_process, make_brain, writable_by_this_gbrain

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def no_times(text: str) -> str:
    """``text`` with its ISO timestamps (when a row was written) masked."""
    import re

    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "T", text)


def out(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout.decode()


# ---------------------------------------------------------------------------
# the SQL adapter and the URL helpers (no server)
# ---------------------------------------------------------------------------


def test_translate_rewrites_sqlite_spellings_and_never_touches_literals():
    t = pg.translate
    assert t("SELECT a FROM t WHERE b = ? AND c = :name") == "SELECT a FROM t WHERE b = %s AND c = %(name)s"
    assert t("SELECT '?', 'x%y', x::text FROM t WHERE y LIKE '%/' || ?") == "SELECT '?', 'x%%y', x::text FROM t WHERE y ILIKE '%%/' || %s"
    assert t("INSERT OR IGNORE INTO tags(a) VALUES (?)") == "INSERT INTO tags(a) VALUES (%s) ON CONFLICT DO NOTHING"
    assert t("INSERT OR IGNORE INTO t(a) VALUES (?) RETURNING id") == "INSERT INTO t(a) VALUES (%s) ON CONFLICT DO NOTHING RETURNING id"
    assert t("UPDATE t SET at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')") == "UPDATE t SET at = gb_now()"
    assert t("SELECT 1 WHERE a IS NOT ? AND b IS NOT NULL") == "SELECT 1 WHERE a IS DISTINCT FROM %s AND b IS NOT NULL"
    assert t("SELECT * FROM h WHERE 1 AND at >= ?") == "SELECT * FROM h WHERE TRUE AND at >= %s"
    assert t("SELECT * FROM h WHERE 1 = ?") == "SELECT * FROM h WHERE 1 = %s"
    assert t("SELECT 1 FROM p WHERE a LIKE ?") == "SELECT 1 FROM p WHERE a ILIKE %s"
    assert t("SELECT GROUP_CONCAT(slug, char(31)), instr(a, ?) FROM p") == "SELECT string_agg(slug, chr(31)), strpos(a, %s) FROM p"
    assert t("SELECT 1 WHERE substr(d, 1, 1) = X'64'") == "SELECT 1 WHERE substr(d, 1, 1) = '\\x64'::bytea"
    with pytest.raises(NotImplementedError):
        t("INSERT OR REPLACE INTO t(a) VALUES (?)")
    with pytest.raises(NotImplementedError):
        t("SELECT strftime('%s', 'now')")


@pytest.mark.parametrize("text", [
    "postgresql://alice:s3cr3t@db.example.com:5432/brain",
    "could not connect to postgresql://alice:s3cr3t@db.example.com/brain: timeout",
    "host=db.example.com user=alice password=s3cr3t dbname=brain",
    "postgresql://alice@db.example.com/brain?password=s3cr3t&sslmode=require",
])
def test_redact_removes_every_password_form(text):
    r = pg.redact(text, "postgresql://alice:s3cr3t@db.example.com/brain")
    assert "s3cr3t" not in r and "***" in r


def test_url_selects_postgres_and_a_path_selects_sqlite(tmp_path):
    from gbrain.storage.db import resolve_db_path

    u = resolve_db_path("postgresql://alice:pw@h/db")
    assert isinstance(u, pg.DbUrl) and str(u) == "postgresql://alice:***@h/db" and u.url.endswith(":pw@h/db")
    assert isinstance(resolve_db_path(str(tmp_path / "b.db")), Path)
    assert pg.is_url("postgres://h/db") and not pg.is_url("postgres.db")


@pytest.mark.parametrize("db", [
    "postgresq://bob:hunter2@db.example.com/team",  # a typo in the scheme
    "postgresql//bob:hunter2@db.example.com/team",  # the colon left out
    "postgresql:/bob:hunter2@db.example.com/team",  # one slash
    "mysql://bob:hunter2@localhost/team",  # another database
    "dbname=team host=/tmp password=hunter2",  # a libpq key=value string
])
@pytest.mark.parametrize("via", ["--db", "GBRAIN_DB"])
def test_a_mistyped_database_url_is_bad_input_and_never_shows_its_password(tmp_path, db, via):
    """A `--db` (or GBRAIN_DB) meant as a URL but not a postgresql:// one used to be taken as a
    file path and printed whole, password included ("folder for the database does not exist:
    postgresq:/bob:hunter2@…"). It is bad input now (exit 2, one line, the password hidden,
    the JSON error too), and nothing is created."""
    from conftest import gbrain

    args, env = (["--db", db], None) if via == "--db" else ([], {"GBRAIN_DB": db})
    for cmd in (["stats"], ["search", "x", "--json"], ["import", str(tmp_path)], ["serve"]):
        r = gbrain(*args, *cmd, env=env, cwd=tmp_path, input=b"")
        err = r.stderr.decode()
        assert r.returncode == 2 and "hunter2" not in err + r.stdout.decode(), (cmd, err)
        assert len(err.strip().splitlines()) == 1 and "postgresql://" in err
    assert os.listdir(tmp_path) == []


def test_redact_hides_a_password_with_an_unencoded_at_sign_whole():
    assert pg.redact("postgresql://alice:p@ss@/team?host=/tmp") == "postgresql://alice:***@/team?host=/tmp"


# ---------------------------------------------------------------------------
# a real server
# ---------------------------------------------------------------------------


def test_password_never_printed_when_the_server_refuses(pg_server, tmp_path):
    """A wrong password / unreachable server: exit 1, one line, the password nowhere."""
    bad = "postgresql://alice:Sup3rS3cret@127.0.0.1:1/brain?connect_timeout=2"
    r = gbrain("stats", "--db", bad)
    err = r.stderr.decode()
    assert r.returncode == 1 and "Sup3rS3cret" not in err + r.stdout.decode() and "alice:***@" in err, err
    # a server that is up, a role that does not exist: the server's own error text, redacted
    url = pg_server.replace("postgres:@", "nobody:Sup3rS3cret@", 1)
    r = gbrain("get", "x", "--db", url)
    err = r.stderr.decode()
    assert r.returncode == 1 and "Sup3rS3cret" not in err and "nobody:***@" in err, err


def test_schema_is_versioned_and_opening_twice_migrates_once(pg_url):
    assert out(gbrain("init", "--db", pg_url)).startswith("created postgresql://")
    assert out(gbrain("init", pg_url)).startswith("exists postgresql://")
    with Brain.open(pg_url) as b:
        assert pg.schema_version(b.conn) == pg.PG_SCHEMA_VERSION
        assert b.conn.execute("SELECT count(*) FROM gbrain_schema").fetchone()[0] == pg.PG_SCHEMA_VERSION
        idx = {r[0] for r in b.conn.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'pages'")}
        assert any("gin (search_tsv)" in d for d in idx)
    with Brain.open(pg_url) as b:
        assert b.conn.execute("SELECT count(*) FROM gbrain_schema").fetchone()[0] == pg.PG_SCHEMA_VERSION
        b.conn.execute("INSERT INTO gbrain_schema(version) VALUES (99)")
    r = gbrain("stats", "--db", pg_url)
    assert r.returncode == 1 and "newer than this gbrain" in r.stderr.decode()


def pipe(db: str, calls: list[tuple[str, dict]]) -> list:
    """Run ``calls`` through one `gbrain pipe` process on ``db``; the responses, in order."""
    lines = "".join(json.dumps({"id": i, "tool": t, "params": p}) + "\n" for i, (t, p) in enumerate(calls))
    return [json.loads(x) for x in out(gbrain("pipe", "--db", db, input=lines)).splitlines()]


def test_core_commands_on_postgres_equal_sqlite(pg_url, tmp_path, brain_tree):
    """import → the same answers as SQLite for get/list/tags/links/backlinks/timeline/raw/
    threads/graph/stats, the same search hits (and the same top hit for names); user text is never
    query syntax; writes (put, tag, timeline-add, link) → export is the same tree as the same
    writes on SQLite, byte for byte."""
    cli = gbrain_in_process  # in-process (the pipe() helper stays a real process): about the answers of the two engines, not the process
    sq = str(tmp_path / "brain.db")
    page = "---\ntitle: Zoë New\ntype: person\n---\n# Zoë New\n\nMet at the fair.\n"
    calls = [
        ("get", {"slug": "people/ana-lima"}), ("get", {"slug": "ana-lima"}), ("list", {}), ("list", {"type": "person"}),
        ("tags", {}), ("tags", {"slug": "people/ana-lima"}), ("links", {"slug": "people/ana-lima"}),
        ("backlinks", {"slug": "companies/river-ai"}), ("timeline", {"slug": "people/ana-lima"}),
        ("raw", {"slug": "people/ana-lima"}), ("threads", {}), ("graph", {"slug": "ana-lima"}), ("lint", {}),
        *[("search", {"query": q}) for q in ("Series A", "Jensen Huang", "inference costs", "River AI", "Bruno")],
        *[("search", {"query": q}) for q in ('"unbalanced', "a & b | !c", "foo:*", "(((", "' OR 1=1 --", "ünïcødé 東京")],
        ("put", {"slug": "people/zoe-new", "content": page}), ("tag", {"slug": "people/zoe-new", "tag": "fair"}),
        ("timeline-add", {"slug": "people/zoe-new", "date": "2025-04-01", "summary": "Coffee"}),
        ("link", {"from": "people/zoe-new", "to": "people/ana-lima"}), ("backlinks", {"slug": "people/ana-lima"}),
        ("stats", {}),
    ]
    res = {}
    for db in (sq, pg_url):
        out(cli("import", str(brain_tree), "--db", db))
        res[db] = pipe(db, calls)
    for (tool, params), a, b in zip(calls, res[pg_url], res[sq]):
        assert a["ok"] and b["ok"], (tool, params, a, b)
        if tool == "search":
            hp, hs = a["result"], b["result"]
            assert {h["slug"] for h in hp} == {h["slug"] for h in hs}, params
            if params["query"] in ("Series A", "Jensen Huang", "River AI", "Bruno"):
                assert hp[0]["slug"] == hs[0]["slug"], (params, hp[:2], hs[:2])
        elif tool == "stats":
            sizes = ("db_bytes", "history_bytes", "history_table_bytes", "free_bytes")  # each engine's own storage
            assert {k: v for k, v in a["result"].items() if k not in sizes} == {k: v for k, v in b["result"].items() if k not in sizes}
        else:
            assert no_times(json.dumps(a["result"])) == no_times(json.dumps(b["result"])), (tool, params)
    out(cli("export", "--dir", str(tmp_path / "from-pg"), "--db", pg_url))
    out(cli("export", "--dir", str(tmp_path / "from-sqlite"), "--db", sq))
    assert tree_bytes(tmp_path / "from-pg") == tree_bytes(tmp_path / "from-sqlite")
    r = cli("check", "--db", pg_url)
    assert r.returncode == 0 and "OK" in r.stdout.decode()


def test_import_export_is_byte_exact_on_a_generated_brain(pg_url, tmp_path):
    """A make_brain tree (pages, sidecars, odd bytes) round-trips through Postgres exactly, and
    verify reports it equal."""
    tree = make_brain(tmp_path / "tree", 150, seed=3)
    out(gbrain("import", str(tree), "--db", pg_url))
    out(gbrain("export", "--dir", str(tmp_path / "out"), "--db", pg_url))
    assert tree_bytes(tmp_path / "out") == tree_bytes(tree)
    r = gbrain("verify", str(tree), "--json", "--db", pg_url)
    assert r.returncode == 0 and json.loads(r.stdout)["ok"] is True, r.stdout.decode()[:2000]


def _bulk_state(url: str) -> dict[str, tuple]:
    """``{table: (pg_class.reltuples, last_analyze, last_vacuum)}`` of a brain's tables (a manual
    ANALYZE's and VACUUM's, never autovacuum's), and under ``"gin"`` the pages of the GIN pending
    lists of ``pages``' search indexes (merged by this call: ``gin_clean_pending_list``)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        st = {r[0]: (r[1], r[2], r[3]) for r in c.execute(
            "SELECT c.relname, c.reltuples, s.last_analyze, s.last_vacuum FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid")}
        st["gin"] = tuple(c.execute("SELECT gin_clean_pending_list('idx_pages_search_tsv'), gin_clean_pending_list('idx_pages_search_names_tsv')").fetchone())
    return st


def test_import_leaves_the_search_indexes_merged_and_the_planner_statistics_fresh(pg_server, pg_url, tmp_path):
    """A bulk import runs VACUUM (ANALYZE) of the tables it filled (db.vacuum_after_bulk): the
    first searches do not read the GIN pending lists of the new entries, with no visibility map
    and no planner statistics, until autovacuum comes up to a minute later (docs/performance.md:
    ~6 ms CPU of a ~26 ms search after a first import). A small re-import leaves that to
    autovacuum. ``gbrain copy`` to Postgres does it too."""
    tree = make_brain(tmp_path / "tree", 150, seed=5)
    out(gbrain("import", str(tree), "--db", pg_url))
    st = _bulk_state(pg_url)
    with Brain.open(pg_url) as b:
        n = b.conn.execute("SELECT count(*) FROM pages").fetchone()[0]
        nl = b.conn.execute("SELECT count(*) FROM links").fetchone()[0]
    assert n > 100 and nl > 0
    assert st["gin"] == (0, 0), st["gin"]
    assert st["pages"][0] == n and st["links"][0] == nl, (st["pages"], st["links"])
    assert all(st[t][1] is not None and st[t][2] is not None for t in ("pages", "aliases", "links", "tags", "timeline_entries", "files", "sync_state", "history", "history_bodies")), st
    # one changed page: below autovacuum's own rule, left to autovacuum
    f = sorted(tree.rglob("*.md"))[0]
    f.write_bytes(f.read_bytes() + b"\none more line\n")
    out(gbrain("import", str(tree), "--db", pg_url))
    assert _bulk_state(pg_url)["pages"][1:] == st["pages"][1:]
    # gbrain copy into an empty Postgres brain
    from conftest import new_pg_database

    sq = tmp_path / "b.db"
    out(gbrain("import", str(tree), "--db", str(sq)))
    to = new_pg_database(pg_server)
    out(gbrain("copy", "--from", str(sq), "--to", to))
    st = _bulk_state(to)
    assert st["gin"] == (0, 0) and st["pages"][0] == n and st["pages"][1] is not None and st["pages"][2] is not None, (st["gin"], st["pages"])


def test_every_table_with_a_gin_index_is_vacuumed_after_a_bulk_write(pg_url):
    """vacuum_after_bulk's tables hold every table a search reads through a GIN index, whose new
    entries sit in its pending list until a VACUUM (canvas_cards' tsv since v44: an import of
    many canvases left them to autovacuum)."""
    from gbrain.storage.db import BULK_TABLES

    with Brain.open(pg_url) as b:
        gin = {r[0] for r in b.conn.execute(
            "SELECT t.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid "
            "JOIN pg_am a ON a.oid = i.relam JOIN pg_namespace n ON n.oid = t.relnamespace "
            "WHERE a.amname = 'gin' AND n.nspname = current_schema()").fetchall()}
    assert gin and gin <= set(BULK_TABLES), gin - set(BULK_TABLES)


def test_every_version_is_kept_with_its_origin(pg_url, brain_tree):
    """History is captured by plpgsql triggers in the writer's transaction: every replaced
    version is readable with `get --version`, with the surface and operation that wrote it."""
    cli = gbrain_in_process  # in-process: about the history rows the commands leave, not the process
    out(cli("import", str(brain_tree), "--db", pg_url))
    v1 = out(cli("get", "people/ana-lima", "--db", pg_url))
    out(cli("tag", "people/ana-lima", "angel", "--db", pg_url))
    out(cli("timeline-add", "people/ana-lima", "--date", "2025-05-01", "--summary", "Lunch", "--db", pg_url))
    h = json.loads(out(cli("history", "people/ana-lima", "--json", "--db", pg_url)))
    rows = h["versions"]
    assert [(r["version"], r["op"], r["surface"], r["operation"]) for r in rows] == [
        (3, "update", "cli", "timeline-add"), (2, "update", "cli", "tag"), (1, "create", "import", "import")]
    assert out(cli("get", "people/ana-lima", "--version", "1", "--db", pg_url)) == v1
    out(cli("revert", "people/ana-lima", "--to", "1", "--db", pg_url))
    assert out(cli("get", "people/ana-lima", "--db", pg_url)) == v1
    ch = json.loads(out(cli("changes", "--origin", "cli", "--json", "--db", pg_url)))
    assert [c["operation"] for c in ch] == ["revert", "timeline-add", "tag"]


def test_sync_both_ways_on_postgres(pg_url, brain_tree, tmp_path):
    """sync binds the folder; a brain write reaches the file (change-log triggers), a file edit
    reaches the brain, and a no-change sync changes nothing."""
    cli = gbrain_in_process  # in-process: about what sync carries each way, not the process
    out(cli("sync", str(brain_tree), "--db", pg_url))
    out(cli("tag", "people/ana-lima", "synced", "--db", pg_url))
    f = brain_tree / "concepts"
    page = next(p for p in sorted(f.glob("*.md")))
    page.write_bytes(page.read_bytes() + b"\nEdited on disk.\n")
    r = json.loads(out(cli("sync", str(brain_tree), "--json", "--db", pg_url)))
    assert "synced" in (brain_tree / "people" / "ana-lima.md").read_text()
    slug = "concepts/" + page.stem
    assert out(cli("get", slug, "--db", pg_url)).endswith("\nEdited on disk.\n")
    again = json.loads(out(cli("sync", str(brain_tree), "--json", "--db", pg_url)))
    assert not any(again.get(k) for k in ("to_disk", "to_brain", "conflicts") if isinstance(again.get(k), (int, list))), again
    assert r is not None


def test_concurrent_writers_from_four_processes_lose_nothing(pg_url, brain_tree):
    """4 processes each tag the same page 5 times (read-modify-write under BEGIN IMMEDIATE →
    an advisory lock): every tag lands, and every version is in the history."""
    out(gbrain("import", str(brain_tree), "--db", pg_url))
    code = (
        "import sys\nfrom gbrain import operations as ops\nfrom gbrain.core.brain import Brain\n"
        "for i in range(5):\n"
        "    with Brain.open(sys.argv[2]) as b:\n"
        "        ops.run('tag', {'slug': 'people/ana-lima', 'tag': f'w{sys.argv[1]}-{i}'}, brain=b)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(w), pg_url], env=env, stderr=subprocess.PIPE) for w in range(4)]
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read().decode()
    tags = json.loads(out(gbrain("tags", "people/ana-lima", "--json", "--db", pg_url)))
    tags = tags["items"] if isinstance(tags, dict) else tags
    assert {f"w{w}-{i}" for w in range(4) for i in range(5)} <= set(tags)
    with Brain.open(pg_url) as b:
        assert b.conn.execute("SELECT count(*) FROM history WHERE name = 'people/ana-lima'").fetchone()[0] == 21


def test_serve_read_only_on_postgres_refuses_writes(pg_url, brain_tree):
    """`serve --read-only` on Postgres: the session is read-only (default_transaction_read_only),
    so even a write through the Brain fails as a read-only error."""
    from gbrain import operations as ops
    from gbrain.errors import GBrainError

    out(gbrain("import", str(brain_tree), "--db", pg_url))
    with Brain.open(pg_url) as b:
        b.refuse_writes()
        assert ops.run("get", {"slug": "ana-lima"}, brain=b)["slug"] == "people/ana-lima"
        with pytest.raises(GBrainError, match="read-only"):
            ops.run("tag", {"slug": "people/ana-lima", "tag": "x"}, brain=b)
    # the pooled connection went back clean: a normal open writes again
    with Brain.open(pg_url) as b:
        ops.run("tag", {"slug": "people/ana-lima", "tag": "x"}, brain=b)


def test_mcp_server_on_postgres(pg_url, brain_tree):
    """`gbrain serve --db postgresql://…` driven by the official MCP SDK client: reads, a write
    that the CLI then sees, the index resource; `--read-only` lists only read tools."""
    import anyio

    from gbrain import operations as ops
    from test_mcp import connect, ok

    out(gbrain("import", str(brain_tree), "--db", pg_url))

    async def main():
        async with connect(pg_url) as c:
            got = ok(await c.call_tool("brain_get", {"slug": "ana-lima"}))
            put = ok(await c.call_tool("brain_put", {"slug": "people/zoe-new", "content": "# Zoë New\n\nMet at the fair.\n"}))
            hits = ok(await c.call_tool("brain_search", {"query": "Series A"}))
            index = await c.read_resource("brain://index")
        async with connect(pg_url, extra=["--read-only"]) as c:
            names = {t.name for t in (await c.list_tools()).tools}
        return got, put, hits, index, names

    got, put, hits, index, names = anyio.run(main)
    assert got["slug"] == "people/ana-lima" and put["created"] is True
    assert hits["items"][0]["slug"] == "deals/river-ai-series-a"
    assert "people/zoe-new" in index.contents[0].text
    assert out(gbrain("get", "people/zoe-new", "--db", pg_url)) == "# Zoë New\n\nMet at the fair.\n"
    assert names == {o.tool_name for o in ops.REGISTRY.values() if o.mcp and not o.mutating}


def test_embed_and_query_use_pgvector_hnsw(pg_url, tmp_path, brain_tree):
    """embed stores each vector in pgvector's column too and makes an HNSW index for the model;
    `query --mode vector` ranks through it with the same pages and cosine scores as the numpy
    index on SQLite; hybrid query works."""
    cli = gbrain_in_process  # in-process: about the vectors and rankings on each engine, not the process
    sq = str(tmp_path / "brain.db")
    res = {}
    for db in (sq, pg_url):
        out(cli("import", str(brain_tree), "--db", db))
        out(cli("config", "set", "embedding_model", "fake-64", "--db", db))
        out(cli("embed", "--db", db))
        res[db] = [json.loads(out(cli("query", "who knows jensen huang", "--mode", m, "--json", "--db", db))) for m in ("vector", "hybrid")]
    vp, vs = res[pg_url][0]["hits"], res[sq][0]["hits"]
    assert [(h["slug"], round(h["score"], 3)) for h in vp] == [(h["slug"], round(h["score"], 3)) for h in vs]
    assert res[pg_url][1]["hits"][0]["slug"] == res[sq][1]["hits"][0]["slug"] and res[pg_url][1]["mode"] == "hybrid"
    with Brain.open(pg_url) as b:
        c = b.conn
        assert c.execute("SELECT count(*) FROM page_embeddings WHERE vec IS NULL").fetchone()[0] == 0
        c.execute("SET enable_seqscan = off")
        c.execute("SET enable_sort = off")  # a 17-row table: make the planner show it can use the index
        from gbrain.search.vectors import PgVectors
        from gbrain.storage.pg import hnsw_index_name

        q = "[" + ",".join(["0.125"] * 64) + "]"
        plan = " ".join(r[0] for r in c.execute(f"EXPLAIN SELECT id FROM page_embeddings WHERE model = 'fake-64' AND dims = 64 ORDER BY vec::vector(64) <=> '{q}'::vector(64) LIMIT 5"))
        assert hnsw_index_name("fake-64", 64) in plan, plan
        assert PgVectors(c, "fake-64", [0.125] * 64).top_pages(3)


def test_embed_drop_drops_the_models_hnsw_index(pg_url, brain_tree):
    """`embed-drop MODEL` on Postgres drops that model's HNSW index with its vectors (an index
    left behind still holds every deleted vector until a VACUUM, whose graph repair walks them
    all, and is planned for every later vector query); another model's index stays, and a later
    embed of the dropped model makes the index again (same connection and a new process)."""
    from gbrain.search.embeddings import get_model
    from gbrain.search.vectors import drop_vectors, embed_pages, plan_embed, select_pages
    from gbrain.storage.pg import hnsw_index_name

    def indexes() -> set[str]:
        with Brain.open(pg_url) as b:
            return {r[0] for r in b.conn.execute("SELECT indexname FROM pg_indexes WHERE starts_with(indexname, 'idx_vec_hnsw_')")}

    out(gbrain("import", str(brain_tree), "--db", pg_url))
    for m in ("fake-32", "fake-64"):
        out(gbrain("config", "set", "embedding_model", m, "--db", pg_url))
        out(gbrain("embed", "--db", pg_url))
    assert indexes() == {hnsw_index_name("fake-32", 32), hnsw_index_name("fake-64", 64)}
    r = json.loads(out(gbrain("embed-drop", "fake-64", "--json", "--db", pg_url)))
    assert r["chunks"] > 0
    assert indexes() == {hnsw_index_name("fake-32", 32)}
    out(gbrain("embed", "--db", pg_url))  # fake-64, the active model, again: a new process
    assert indexes() == {hnsw_index_name("fake-32", 32), hnsw_index_name("fake-64", 64)}
    # one connection that made the index, dropped it and embeds again makes it again
    with Brain.open(pg_url) as b:
        model = get_model("fake-64")
        with b.transaction():
            drop_vectors(b.conn, "fake-64")
        assert hnsw_index_name("fake-64", 64) not in indexes()
        # the same connection: it made this index before (and remembers it), it must make it again
        _plan, work = plan_embed(b.conn, model, select_pages(b.conn, "fake-64", "stale"))
        embed_pages(b.conn, model, work, transaction=b.transaction)
    assert indexes() == {hnsw_index_name("fake-32", 32), hnsw_index_name("fake-64", 64)}
    hits = json.loads(out(gbrain("query", "who knows jensen huang", "--mode", "vector", "--json", "--db", pg_url)))["hits"]
    assert hits


def test_copy_sqlite_to_postgres_and_back_is_the_same_brain(pg_url, tmp_path, brain_tree):
    """`gbrain copy` SQLite → Postgres → SQLite: the same export tree byte for byte, the same
    history (every version's bytes), the same vectors (and pgvector's column + HNSW index on
    Postgres), writes continue after the copied ids; a non-empty target is refused (exit 2,
    nothing written); the URL's password is never printed."""
    cli = gbrain_in_process  # in-process: about what copy/history/export give on each engine, not the process
    a, c = str(tmp_path / "a.db"), str(tmp_path / "c.db")
    out(cli("import", str(brain_tree), "--db", a))
    out(cli("tag", "people/ana-lima", "angel", "--db", a))
    out(cli("config", "set", "embedding_model", "fake-64", "--db", a))
    out(cli("embed", "--db", a))
    with Brain.open(a) as b:  # (a name with accents: its name_folds rows are copied too)
        b.put("people/zoë-kim", "# Zoë Kim\n\nEngineer.\n")
        b.save_file("people/TOC.yml", b"- name: People\n  items:\n  - name: Ana\n    href: ana-lima.md\n")  # (its nav_entries rows too)
    secret = pg_url.replace("postgres:@", "postgres:Pw0rd-Secret@", 1)  # the test server trusts local users
    r = cli("copy", "--from", a, "--to", secret)
    assert r.returncode == 0 and "the same brain" in r.stdout.decode(), r.stderr.decode()
    assert "Pw0rd-Secret" not in (r.stdout + r.stderr).decode() and "postgres:***@" in r.stdout.decode()
    out(cli("timeline-add", "people/ana-lima", "--date", "2025-06-01", "--summary", "After the copy", "--db", pg_url))
    res = json.loads(out(cli("copy", "--from", pg_url, "--to", c, "--json")))
    assert res["equal"] and res["history"] == json.loads(out(cli("copy", "--from", c, "--to", str(tmp_path / "d.db"), "--json")))["history"]
    for db in (pg_url, c):
        h = json.loads(out(cli("history", "people/ana-lima", "--json", "--db", db)))
        assert [v["version"] for v in h["versions"]] == [3, 2, 1]
        assert out(cli("get", "people/ana-lima", "--version", "2", "--db", db)) == out(cli("get", "people/ana-lima", "--version", "2", "--db", a))
    out(cli("export", "--dir", str(tmp_path / "pg"), "--db", pg_url))
    out(cli("export", "--dir", str(tmp_path / "c"), "--db", c))
    assert tree_bytes(tmp_path / "pg") == tree_bytes(tmp_path / "c")
    with Brain.open(pg_url) as b:
        assert b.conn.execute("SELECT count(*) FROM page_embeddings WHERE vec IS NULL").fetchone()[0] == 0
        assert b.conn.execute("SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'idx_vec_hnsw_%'").fetchone()[0] == 1
    with sqlite3.connect(a) as x, sqlite3.connect(c) as y:
        q = "SELECT page_id, chunk_index, embedding, model FROM page_embeddings ORDER BY id"
        assert x.execute(q).fetchall() == y.execute(q).fetchall()
        q = "SELECT page_id, kind, key FROM name_folds ORDER BY 1, 2, 3"
        assert x.execute(q).fetchall() == y.execute(q).fetchall() != []
        q = "SELECT file_id, ord, path, path_key, href, context, form, line FROM nav_entries ORDER BY 1, 2"
        assert x.execute(q).fetchall() == y.execute(q).fetchall() != []
    with Brain.open(pg_url) as b:
        assert [x["type"] for x in b.backlinks("people/ana-lima") if x["slug"] == "people/TOC.yml"] == ["nav"]
    r = cli("copy", "--from", a, "--to", pg_url)
    assert r.returncode == 2 and "already holds a brain" in r.stderr.decode()


def test_watch_on_postgres_both_ways(pg_url, brain_tree):
    """`gbrain watch` on a Postgres brain (a real watchdog observer in a subprocess): a CLI write
    to the brain reaches the file, a file edit reaches the brain."""
    import time

    out(gbrain("sync", str(brain_tree), "--db", pg_url))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    w = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(brain_tree), "--db", pg_url], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def wait_for(cond, what: str) -> None:
        end = time.monotonic() + 120
        while time.monotonic() < end:
            if cond():
                return
            time.sleep(0.2)
        w.kill()
        raise AssertionError(f"{what}: not seen; watch said: {w.stdout.read().decode()[-2000:]}")

    try:
        wait_for(lambda: w.stdout.peek(1) if hasattr(w.stdout, "peek") else True, "watch started")
        out(gbrain("tag", "people/ana-lima", "watched", "--db", pg_url))
        wait_for(lambda: "watched" in (brain_tree / "people" / "ana-lima.md").read_text(), "brain → file")
        f = brain_tree / "concepts" / "hybrid-retrieval.md"
        f.write_bytes(f.read_bytes() + b"\nEdited while watching.\n")
        wait_for(lambda: gbrain("get", "concepts/hybrid-retrieval", "--db", pg_url).stdout.endswith(b"Edited while watching.\n"), "file → brain")
    finally:
        w.terminate()
        w.wait(timeout=30)


def test_two_watchers_on_one_brain_each_with_its_own_base(pg_url, brain_tree, tmp_path):
    """Many people, live (issue 16): two `gbrain watch` processes on two folders of one Postgres
    brain (as two machines would run them). Each folder is a sync client with its own base and
    cursor; a save in one reaches the other through LISTEN/NOTIFY; a delete propagates; two saves
    of one page at once give a conflict copy in both folders and keep both versions in the
    history."""
    import re
    import shutil

    from test_watch import Watch, wait_for

    a, b = tmp_path / "alice", tmp_path / "bob"
    shutil.copytree(brain_tree, a)
    b.mkdir()
    wa = Watch(a, pg_url)
    wb = None
    try:
        wb = Watch(b, pg_url)
        # bob's empty folder is filled from the brain by his watcher's catch-up
        wait_for(lambda: tree_bytes(b) == tree_bytes(a), "bob's folder to equal alice's")
        with Brain.open(pg_url) as br:
            clients = sorted(r[0] for r in br.conn.execute("SELECT client FROM sync_root"))
            assert [c.split(":", 1)[1] for c in clients] == sorted([str(a), str(b)])  # host:folder
            per = dict(br.conn.execute("SELECT client, count(*) FROM sync_state GROUP BY client").fetchall())
            assert len(per) == 2 and len(set(per.values())) == 1  # each folder has a base for every path
        # a save in alice's folder reaches bob's
        fa = a / "people" / "ana-lima.md"
        fa.write_bytes(fa.read_bytes() + b"\nAlice was here.\n")
        wait_for(lambda: (b / "people" / "ana-lima.md").read_bytes() == fa.read_bytes(), "alice's save in bob's folder")
        # a new note in bob's folder reaches alice's; a delete in alice's folder removes it in bob's
        (b / "notes").mkdir(exist_ok=True)
        (b / "notes" / "from-bob.md").write_bytes(b"# From Bob\n\nHello.\n")
        wait_for(lambda: (a / "notes" / "from-bob.md").exists(), "bob's new note in alice's folder")
        (a / "notes" / "from-bob.md").unlink()
        wait_for(lambda: not (b / "notes" / "from-bob.md").exists(), "alice's delete in bob's folder")
        # both edit one page at once: a conflict copy, nothing lost
        pa, pb = a / "concepts" / "hybrid-retrieval.md", b / "concepts" / "hybrid-retrieval.md"
        base = pa.read_bytes()
        va, vb = base + b"\nAlice's version.\n", base + b"\nBob's version.\n"
        pa.write_bytes(va)
        pb.write_bytes(vb)
        copy = re.compile(r"hybrid-retrieval\.conflict-\d{8}T\d{6}(-\d+)?\.md")

        def settled():
            ca = sorted(p.name for p in (a / "concepts").iterdir() if copy.fullmatch(p.name))
            return len(ca) == 1 and tree_bytes(a) == tree_bytes(b)

        wait_for(settled, "one conflict copy and equal folders")
        kept = pa.read_bytes()
        other = next(p for p in (a / "concepts").iterdir() if copy.fullmatch(p.name)).read_bytes()
        assert {kept, other} == {va, vb}
        with Brain.open(pg_url) as br:
            from gbrain.core.history import body

            ids = [r[0] for r in br.conn.execute("SELECT body_id FROM history WHERE kind = 'page' AND name = ? AND body_id IS NOT NULL", ("concepts/hybrid-retrieval",))]
            bodies = {body(br.conn, i) for i in ids}
            assert va in bodies and vb in bodies  # both versions in the page's history
            assert br.conn.execute("SELECT count(*) FROM sync_conflicts WHERE path = ?", ("concepts/hybrid-retrieval.md",)).fetchone()[0] == 1
    except BaseException:  # what each watcher said, for a failure seen only under CI load
        print("ALICE", *wa.lines, "BOB", *(wb.lines if wb else []), sep="\n")
        print("differ:", sorted(k for k in set(tree_bytes(a)) | set(tree_bytes(b)) if tree_bytes(a).get(k) != tree_bytes(b).get(k)))
        raise
    finally:
        for w in (wa, wb):
            if w is not None:
                w.kill()


def test_a_commit_that_writes_the_change_log_notifies_listeners(pg_url, brain_tree):
    """`watch` learns of other machines' writes from LISTEN gbrain_changes (pg_v2.sql's trigger
    on the change log), read from the socket: one notification per committed write transaction
    while a folder is bound, none for a read or a rolled-back write."""
    import time

    out(gbrain("sync", str(brain_tree), "--db", pg_url))  # binds a folder: the change log is written
    lis = pg.Listener(pg_url)
    try:
        assert lis.poll() == 0
        out(gbrain("get", "people/ana-lima", "--db", pg_url))
        out(gbrain("tag", "people/ana-lima", "one", "--db", pg_url))
        with Brain.open(pg_url) as b:
            b.conn.execute("BEGIN IMMEDIATE")
            b.conn.execute("UPDATE pages SET content_hash = 'x' WHERE path = 'people/ana-lima.md'")
            b.conn.rollback()
        end = time.monotonic() + 30
        while lis.poll() < 1 and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.3)
        assert lis.poll() == 1
    finally:
        lis.close()


def test_big_file_in_pieces_on_postgres_and_copied_both_ways(pg_url, tmp_path):
    """A file over ``blobs.BIG`` is stored in pieces on Postgres too (schema v2): import, a new
    version, export byte for byte, history body marker, and `gbrain copy` Postgres → SQLite →
    Postgres keeps the pieces and every version."""
    import hashlib

    from gbrain.core import history
    from gbrain.storage import blobs

    tree = tmp_path / "tree"
    (tree / "att").mkdir(parents=True)
    (tree / "n.md").write_text("# N\n", encoding="utf-8")
    data1 = os.urandom(blobs.BIG + blobs.PIECE + 5)
    (tree / "att" / "v.bin").write_bytes(data1)
    out(gbrain("import", str(tree), "--db", pg_url))
    data2 = data1[:-5] + b"12345"
    (tree / "att" / "v.bin").write_bytes(data2)
    out(gbrain("import", str(tree), "--db", pg_url))
    with Brain.open(pg_url) as b:
        assert b.conn.execute("SELECT pieces FROM files WHERE path = 'att/v.bin'").fetchone()[0] == 18
        rows = b.conn.execute("SELECT body_id FROM history WHERE kind = 'file' AND name = 'att/v.bin' ORDER BY version").fetchall()
        assert [hashlib.sha256(history.body(b.conn, r[0])).hexdigest() for r in rows] == [hashlib.sha256(d).hexdigest() for d in (data1, data2)]
    out(gbrain("export", "--dir", str(tmp_path / "pg"), "--db", pg_url))
    assert (tmp_path / "pg" / "att" / "v.bin").read_bytes() == data2
    c = str(tmp_path / "c.db")
    out(gbrain("copy", "--from", pg_url, "--to", c))
    out(gbrain("export", "--dir", str(tmp_path / "c"), "--db", c))
    assert tree_bytes(tmp_path / "c") == tree_bytes(tmp_path / "pg")
    with Brain.open(c) as b:
        assert b.conn.execute("SELECT COUNT(DISTINCT hash) FROM blob_pieces").fetchone()[0] == 2
        assert blobs.file_bytes(b.conn, "att/v.bin") == data2


def test_search_ranks_a_bounded_candidate_set_and_keeps_every_name_match(pg_url, monkeypatch):
    """Postgres search ranks at most PG_CANDIDATES body matches (from the GIN index), beside every
    page with a query word in a name: with a word in every body, the page titled with it and the
    page with both words still come first; with few matches the ranking is the full one."""
    from gbrain.search import keyword

    with Brain.open(pg_url) as b:
        for i in range(30):
            b.put(f"notes/n{i:02d}", f"# Note {i}\n\nA pricing remark number {i}, and more pricing.\n")
        b.put("notes/zz-both", "# Both\n\nPricing and tariffs together.\n")
        b.put("concepts/pricing", "# Pricing\n\nHow we set prices.\n")
        full = [h["slug"] for h in keyword.search(b.conn, "pricing", limit=40)]
        monkeypatch.setattr(keyword, "PG_CANDIDATES", 5)
        bounded = keyword.search(b.conn, "pricing", limit=40)
        assert bounded[0]["slug"] == full[0] == "concepts/pricing" and "title" in bounded[0]["signals"]
        assert len(bounded) >= 5 and {h["slug"] for h in bounded} <= set(full)
        two = [h["slug"] for h in keyword.search(b.conn, "pricing tariffs", limit=5)]
        assert set(two[:2]) == {"notes/zz-both", "concepts/pricing"}  # every word / the name: ranked whatever the table order
        monkeypatch.setattr(keyword, "PG_CANDIDATES", 400)
        assert [h["slug"] for h in keyword.search(b.conn, "pricing", limit=40)] == full


def _synced_from_two_folders(pg_url, brain_tree, tmp_path):
    """The brain at ``pg_url`` bound to and synced with two folders of this machine: ``brain_tree``
    first, then a copy of it, ``tmp_path / "other"`` (returned)."""
    import shutil

    from gbrain.sync.engine import SyncEngine

    other = tmp_path / "other"
    shutil.copytree(brain_tree, other)
    with Brain.open(pg_url) as b:
        for root in (brain_tree, other):
            e = SyncEngine(b, root)
            e.bind()
            assert e.sync()["ok"]
            e.close()
    return other


def test_copy_of_a_brain_with_two_sync_clients_to_sqlite_keeps_this_machines_first(pg_url, brain_tree, tmp_path):
    """A Postgres brain synced with two folders has two clients (host:folder), each with its own
    base; `copy` to SQLite (one folder per file) keeps the first client of this machine as the
    file's binding, so syncing that folder with the copy finds nothing to do."""
    from gbrain.sync.engine import SyncEngine

    _synced_from_two_folders(pg_url, brain_tree, tmp_path)
    with Brain.open(pg_url) as b:
        assert len(b.conn.execute("SELECT client FROM sync_root").fetchall()) == 2
    c = tmp_path / "c.db"
    out(gbrain("copy", "--from", pg_url, "--to", str(c)))
    with Brain.open(c) as b:
        assert [tuple(r) for r in b.conn.execute("SELECT id, client, root FROM sync_root")] == [(1, "", str(brain_tree))]
        e = SyncEngine(b, brain_tree)
        e.bind()
        rep = e.sync()
        e.close()
        assert rep["ok"] and not any(rep["counts"].values()), rep["counts"]


def test_copy_to_sqlite_keeps_the_folder_asked_for(pg_url, brain_tree, tmp_path):
    """A teammate leaving the team brain copies it to SQLite for their own folder: `copy --folder
    DIR` keeps that folder's sync base (the default, this machine's first folder, was another
    person's: their folder's edit made since its last sync came back as a conflict after
    `sync --rebind`, the base gone). The copy says which folder it kept; a folder that is no
    client of the brain is bad input, nothing written."""
    from gbrain.sync.engine import SyncEngine

    other = _synced_from_two_folders(pg_url, brain_tree, tmp_path)
    (other / "people" / "ana-lima.md").write_bytes((other / "people" / "ana-lima.md").read_bytes() + b"edited in other\n")
    bad = gbrain_in_process("copy", "--from", pg_url, "--to", str(tmp_path / "x.db"), "--folder", str(tmp_path / "nope"))
    assert bad.returncode == 2 and str(other) in bad.stderr.decode() and not (tmp_path / "x.db").exists(), bad.stderr
    c = tmp_path / "c.db"
    r = gbrain_in_process("copy", "--from", pg_url, "--to", str(c), "--folder", str(other))
    assert r.returncode == 0 and f"kept the sync base of {other}" in r.stdout.decode(), r
    with Brain.open(c) as b:
        assert [tuple(r) for r in b.conn.execute("SELECT id, client, root FROM sync_root")] == [(1, "", str(other))]
        e = SyncEngine(b, other)
        e.bind()
        rep = e.sync()
        e.close()
    assert rep["ok"] and rep["counts"]["imported"] == 1 and rep["counts"]["conflicts"] == 0, rep["counts"]


def test_copy_to_sqlite_takes_the_folder_as_sync_clients_lists_it(pg_url, brain_tree, tmp_path):
    """`copy --folder` points at `gbrain sync-clients` for the folders, which lists them as client
    ids (host:/folder, as `sync-forget` takes them): given one, the copy refused it as no folder of
    the brain, its message listing that very id. A client id is taken, as `sync-forget` takes it."""
    import socket

    other = _synced_from_two_folders(pg_url, brain_tree, tmp_path)
    c = tmp_path / "c.db"
    r = gbrain_in_process("copy", "--from", pg_url, "--to", str(c), "--folder", f"{socket.gethostname()}:{other}")
    assert r.returncode == 0 and f"kept the sync base of {other}" in r.stdout.decode(), r
    with Brain.open(c) as b:
        assert [tuple(r) for r in b.conn.execute("SELECT id, client, root FROM sync_root")] == [(1, "", str(other))]


def test_trash_restore_and_prune_on_postgres(pg_url, brain_tree):
    """The trash is a view of the history on Postgres too (schema v2: history.trashed; v5: no
    sync_trash): a deleted page is listed, restore brings its exact bytes back as a new version,
    a version import replaced while the brain alone held it is listed as trashed, and pruning
    (dry run, then --apply) keeps the current versions, and the trash unless --include-deleted."""
    cli = gbrain_in_process  # in-process: about the trash and history the commands leave, not the process
    out(cli("import", str(brain_tree), "--db", pg_url))
    v1 = out(cli("get", "people/ana-lima", "--db", pg_url))
    out(cli("delete", "people/ana-lima", "--db", pg_url))
    t = json.loads(out(cli("trash", "--json", "--db", pg_url)))
    assert [(e["slug"], e["version"], e["deleted"]) for e in t] == [("people/ana-lima", 1, True)]
    r = json.loads(out(cli("restore", "people/ana-lima", "--json", "--db", pg_url)))
    assert r["version"] == 1 and out(cli("get", "people/ana-lima", "--db", pg_url)) == v1
    assert json.loads(out(cli("trash", "--json", "--db", pg_url))) == []
    # an edit made in the brain, then an import of the file edited too: the brain's edit is trashed
    out(cli("tag", "people/ana-lima", "angel", "--db", pg_url))
    edited = out(cli("get", "people/ana-lima", "--db", pg_url))
    ana = brain_tree / "people" / "ana-lima.md"
    ana.write_bytes(v1.encode() + b"edited on disk\n")
    out(cli("import", str(brain_tree), "--db", pg_url))
    t = json.loads(out(cli("trash", "--json", "--db", pg_url)))
    assert [(e["slug"], e["deleted"]) for e in t] == [("people/ana-lima", False)], t
    assert out(cli("get", "people/ana-lima", "--version", str(t[0]["version"]), "--db", pg_url)) == edited
    with Brain.open(pg_url) as b:
        assert not b.conn.execute("SELECT 1 FROM pg_tables WHERE tablename = 'sync_trash'").fetchone()
    dry = json.loads(out(cli("history-prune", "--keep-last", "1", "--json", "--db", pg_url)))
    assert dry["versions"] > 0 and not dry["applied"]
    done = json.loads(out(cli("history-prune", "--keep-last", "1", "--apply", "--json", "--db", pg_url)))
    assert done["versions"] == dry["versions"] and done["applied"]
    assert out(cli("get", "people/ana-lima", "--db", pg_url)) == v1 + "edited on disk\n"
    # the replaced version stays in the trash: the user did not ask for deleted things
    assert json.loads(out(cli("trash", "--json", "--db", pg_url))) == t
    assert json.loads(out(cli("history", "people/ana-lima", "--json", "--db", pg_url)))["total"] == 2
    out(cli("history-prune", "--keep-last", "1", "--include-deleted", "--apply", "--json", "--db", pg_url))
    assert json.loads(out(cli("trash", "--json", "--db", pg_url))) == []
    assert json.loads(out(cli("history", "people/ana-lima", "--json", "--db", pg_url)))["total"] == 1


def test_copy_carries_the_trash_both_ways(pg_url, tmp_path, brain_tree):
    """A page deleted in SQLite and a version marked trashed are in the trash after `gbrain copy`
    to Postgres, where restore brings the page back; deleted again there and copied back to
    SQLite, restore works there too."""
    cli = gbrain_in_process  # in-process: about the trash copy carries, not the process
    a, c = str(tmp_path / "a.db"), str(tmp_path / "c.db")
    out(cli("import", str(brain_tree), "--db", a))
    v1 = out(cli("get", "people/ana-lima", "--db", a))
    out(cli("tag", "concepts/hybrid-retrieval", "x-edit", "--db", a))
    edited = out(cli("get", "concepts/hybrid-retrieval", "--db", a))
    f = brain_tree / "concepts" / "hybrid-retrieval.md"
    f.write_bytes(f.read_bytes() + b"edited on disk\n")
    out(cli("import", str(brain_tree), "--db", a))  # replaces the brain-only edit: trashed
    out(cli("delete", "people/ana-lima", "--db", a))
    before = json.loads(out(cli("trash", "--json", "--db", a)))
    assert {(e["slug"], e["deleted"]) for e in before} == {("people/ana-lima", True), ("concepts/hybrid-retrieval", False)}
    out(cli("copy", "--from", a, "--to", pg_url))
    assert json.loads(out(cli("trash", "--json", "--db", pg_url))) == before
    t = next(e for e in before if not e["deleted"])
    assert out(cli("get", "concepts/hybrid-retrieval", "--version", str(t["version"]), "--db", pg_url)) == edited
    out(cli("restore", "people/ana-lima", "--db", pg_url))
    assert out(cli("get", "people/ana-lima", "--db", pg_url)) == v1
    out(cli("delete", "people/ana-lima", "--db", pg_url))
    mid = json.loads(out(cli("trash", "--json", "--db", pg_url)))
    out(cli("copy", "--from", pg_url, "--to", c))
    assert json.loads(out(cli("trash", "--json", "--db", c))) == mid
    out(cli("restore", "people/ana-lima", "--db", c))
    assert out(cli("get", "people/ana-lima", "--db", c)) == v1


def test_v5_moves_the_old_trash_into_history_losing_nothing(pg_url, monkeypatch):
    """A Postgres brain made with schema v1 (sync_trash) holding trash rows of every kind the
    old code wrote: after v2 the table is gone, every trashed body is a version of its page or
    file, the trash lists them and restore / revert give the exact bytes back (schema v5; v2
    added history.trashed but left the rows in sync_trash)."""
    from gbrain import operations as ops
    from gbrain.core import history as h

    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 1)

    def old_trash(b, path, slug, kind, data, reason):
        b.conn.execute("INSERT INTO sync_trash(path, slug, kind, data, content_hash, reason, deleted_at) VALUES (?, ?, ?, ?, ?, ?, '2025-01-02T03:04:05Z')",
                       (path, slug, kind, data, h.hashlib_sha(data), reason))

    with Brain.open(pg_url) as b:
        assert pg.schema_version(b.conn) == 1
        writable_by_this_gbrain(b.conn)
        b.put("people/ana", "ana 1\n")
        b.put("people/ana", "ana 2\n")
        old_trash(b, "people/ana.md", "people/ana", "page", b"ana 2\n", "replaced by import")  # in history already
        b.put("people/ana", "ana 3\n")
        old_trash(b, "people/ana.md", "people/ana", "page", b"ana 3\n", "replaced by import")  # the current text: nothing lost
        b.put("notes/gone", "gone 1\n")
        old_trash(b, "notes/gone.md", "notes/gone", "page", b"gone 1\n", "deleted through gbrain")
        ops.run("delete", {"slug": "notes/gone"}, brain=b)
        old_trash(b, "old/pre.md", "old/pre", "page", b"deleted before history\n", "file deleted")  # no history at all
        old_trash(b, "people/ana.md", "people/ana", "page", b"ana 0, before history\n", "replaced by import")  # live page, bytes lacking
        old_trash(b, "assets/x.bin", None, "blob", b"\x00\x01binary", "file deleted")
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 5)
    with Brain.open(pg_url) as b:
        c = b.conn
        assert pg.schema_version(c) == 5
        assert not c.execute("SELECT 1 FROM pg_tables WHERE tablename = 'sync_trash'").fetchone()
        t = {(e["slug"] or e["path"], e["deleted"]): e for e in h.trash_list(b)}
        assert set(t) == {("people/ana", False), ("notes/gone", True), ("old/pre", True), ("assets/x.bin", True)}, t
        assert b.get_text("people/ana") == "ana 3\n"  # the live page keeps its text as its newest version
        assert h.get_version(b, "people/ana", t[("people/ana", False)]["version"])["content"] in ("ana 2\n", "ana 0, before history\n")
        vs = {h.get_version(b, "people/ana", v["version"])["content"] for v in h.versions(b, "people/ana", limit=0)["versions"] if v["op"] != "delete"}
        assert {"ana 1\n", "ana 2\n", "ana 3\n", "ana 0, before history\n"} <= vs
        assert [v["version"] for v in h.versions(b, "people/ana", limit=0)["versions"]] == [5, 4, 3, 2, 1]  # nothing renumbered: v4 the lacking bytes, v5 the current text again
        for slug, text in (("notes/gone", "gone 1\n"), ("old/pre", "deleted before history\n")):
            h.restore(b, slug)
            assert b.get_text(slug) == text
        h.restore(b, "assets/x.bin")
        assert bytes(c.execute("SELECT data FROM files WHERE path = 'assets/x.bin'").fetchone()[0]) == b"\x00\x01binary"


def test_search_type_filter_applies_before_the_candidate_bound(pg_url, monkeypatch):
    """`search WORD --type X` when WORD is in more bodies than PG_CANDIDATES: the bounded
    candidate set is drawn from the pages of type X only, so every X page with the word is
    found (here they come last in table order, past the bound of all matches); `query --type`
    likewise finds X pages beyond the HNSW candidates of all pages."""
    from gbrain.search import keyword

    with Brain.open(pg_url) as b:
        for i in range(30):
            b.put(f"notes/n{i:02d}", f"# Note {i}\n\nA pricing remark number {i}, and more pricing.\n")
        for i in range(3):
            b.put(f"deals/d{i}", f"---\ntype: deal\n---\n# Deal {i}\n\nThe pricing of deal {i}.\n")
        want = {f"deals/d{i}" for i in range(3)}
        full = {h["slug"] for h in keyword.search(b.conn, "pricing", type="deal", limit=10)}
        assert full == want
        monkeypatch.setattr(keyword, "PG_CANDIDATES", 5)
        assert {h["slug"] for h in keyword.search(b.conn, "pricing", type="deal", limit=10)} == want
        assert len(keyword.search(b.conn, "pricing", limit=40)) >= 5
        hits = keyword.keyword_candidates(b.conn, "pricing", type="deal", limit=10)
        assert {b.conn.execute("SELECT slug FROM pages WHERE id = ?", (h["id"],)).fetchone()[0] for h in hits} == want


def test_vector_type_filter_applies_before_the_hnsw_bound(pg_url):
    """`query --type X` on Postgres: pages of type X are found even when every one of the nearest
    chunks of all pages is of another type (the filter is not applied to HNSW's first k)."""
    import numpy as np

    from gbrain.search.vectors import PgVectors
    from gbrain.storage.pg import ensure_hnsw_index, pg_vector_text

    with Brain.open(pg_url) as b:
        for i in range(60):
            b.put(f"notes/n{i:02d}", f"# Note {i}\n\nText {i}.\n")
        for i in range(2):
            b.put(f"deals/d{i}", f"---\ntype: deal\n---\n# Deal {i}\n\nText.\n")
        rows = b.conn.execute("SELECT id, slug FROM pages ORDER BY id").fetchall()
        q = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
        with b.transaction():
            for pid, slug in rows:
                far = slug.startswith("deals/")
                v = np.array([0.0, 1.0, 0.0, 0.0] if far else [1.0, 0.01 * (pid % 7), 0.0, 0.0], dtype=np.float32)
                v /= np.linalg.norm(v)
                b.conn.execute("INSERT INTO page_embeddings(page_id, chunk_index, chunk_text, embedding, model, text_hash, dims, vec) "
                               "VALUES (?, 0, 't', ?, 'fake-4', ?, 4, ?::vector)", (pid, v.tobytes(), slug, pg_vector_text(v.tobytes())))
        ensure_hnsw_index(b.conn, "fake-4", 4)
        pv = PgVectors(b.conn, "fake-4", q)
        got = {b.conn.execute("SELECT slug FROM pages WHERE id = ?", (p,)).fetchone()[0] for p, _, _ in pv.top_pages(5, "deal")}
        assert got == {"deals/d0", "deals/d1"}


def test_watch_listens_again_after_its_listen_connection_is_lost(pg_server, pg_url, brain_tree, tmp_path):
    """Two `gbrain watch` processes on two folders; bob's LISTEN connection is terminated by the
    server (pg_terminate_backend) while the database refuses new connections, so his first
    reconnect fails: his watch keeps going (polling meanwhile), LISTENs again on a new backend
    once it can (with back-off), and a later save in alice's folder still reaches his."""
    import shutil

    import psycopg

    from test_watch import Watch, wait_for

    a, b = tmp_path / "alice", tmp_path / "bob"
    shutil.copytree(brain_tree, a)
    b.mkdir()
    dbname = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]
    admin = psycopg.connect(pg_server, autocommit=True)

    def listeners(pid: int) -> list[int]:
        return [r[0] for r in admin.execute("SELECT pid FROM pg_stat_activity WHERE application_name LIKE %s", (f"gbrain-listen:{pid}:%",))]

    wa = Watch(a, pg_url)
    wb = None
    try:
        wb = Watch(b, pg_url)
        wait_for(lambda: tree_bytes(b) == tree_bytes(a), "bob's folder to equal alice's")
        first = listeners(wb.p.pid)
        assert len(first) == 1, first
        admin.execute(f'ALTER DATABASE "{dbname}" WITH ALLOW_CONNECTIONS false')
        try:
            admin.execute("SELECT pg_terminate_backend(%s)", (first[0],))
            wait_for(lambda: wb.saw("reconnecting"), "bob's watch to notice the lost connection")
            fa = a / "people" / "ana-lima.md"
            fa.write_bytes(fa.read_bytes() + b"\nSaved while bob could not listen.\n")
            wait_for(lambda: (b / "people" / "ana-lima.md").read_bytes() == fa.read_bytes(), "the save in bob's folder (polling)")
        finally:
            admin.execute(f'ALTER DATABASE "{dbname}" WITH ALLOW_CONNECTIONS true')
        again = wait_for(lambda: listeners(wb.p.pid), "bob's watch to LISTEN again")
        assert again != first and wb.p.poll() is None
        fa.write_bytes(fa.read_bytes() + b"\nSaved after bob listens again.\n")
        wait_for(lambda: (b / "people" / "ana-lima.md").read_bytes() == fa.read_bytes(), "the later save in bob's folder")
        # lost again, reconnecting at once this time
        admin.execute("SELECT pg_terminate_backend(%s)", (again[0],))
        wait_for(lambda: listeners(wb.p.pid) not in ([], again), "bob's watch to LISTEN on a third backend")
        fa.write_bytes(fa.read_bytes() + b"\nThird save.\n")
        wait_for(lambda: (b / "people" / "ana-lima.md").read_bytes() == fa.read_bytes(), "the third save in bob's folder")
    except BaseException:
        print("ALICE", "\n".join(wa.lines), "BOB", "\n".join(wb.lines if wb else []), sep="\n")
        raise
    finally:
        admin.close()
        for w in (wa, wb):
            if w is not None:
                w.p.kill()


def test_sync_client_expiry_on_postgres_with_a_live_client(pg_url, brain_tree, tmp_path):
    """Sync client expiry on Postgres (pg_v8.sql; the single-client case is
    test_sync_expiry.py, which `--engine postgres` runs here too): two folders, the one unseen too
    long is expired by a writer's trigger while the live one keeps every log row it has not
    applied; once the live one syncs the log is trimmed, and the expired one catches up whole
    (both trees equal)."""
    from test_sync_expiry import _bulk

    from gbrain.storage import db as dbmod

    out(gbrain("sync", str(brain_tree), "--db", pg_url))
    other = tmp_path / "other"
    other.mkdir()
    out(gbrain("sync", str(other), "--db", pg_url))
    with Brain.open(pg_url) as b, b.transaction():
        b.conn.execute("UPDATE sync_root SET synced_at = '2000-01-01T00:00:00Z', bound_at = '2000-01-01T00:00:00Z' WHERE client LIKE ?", ("%:" + str(brain_tree),))
    with Brain.open(pg_url) as b:
        live = b.conn.execute("SELECT cursor FROM sync_root WHERE client LIKE ?", ("%:" + str(other),)).fetchone()[0]
    _bulk(pg_url, "third")
    with Brain.open(pg_url) as b:
        cur = dict((c.split(":", 1)[1], v) for c, v in b.conn.execute("SELECT client, cursor FROM sync_root"))
        assert cur == {str(brain_tree): -1, str(other): live}
        assert b.conn.execute("SELECT count(*) FROM change_log WHERE seq > ?", (live,)).fetchone()[0] == dbmod.EXPIRE_EVERY + 10
    out(gbrain("sync", str(other), "--db", pg_url))
    with Brain.open(pg_url) as b:
        assert b.conn.execute("SELECT count(*) FROM change_log").fetchone()[0] < dbmod.EXPIRE_EVERY
    r = gbrain("sync", str(brain_tree), "--json", "--db", pg_url)
    assert json.loads(out(r))["exit_code"] == 0 and "not synced for longer" in r.stderr.decode()
    assert tree_bytes(brain_tree) == tree_bytes(other)


def _bm25_reference(c, words: list[str]) -> dict[int, float]:
    """BM25 of every page for ``words`` as FTS5 computes it (k1 1.2, b 0.75, IDF
    ``ln((N - df + 0.5) / (df + 0.5))`` floored at 1e-6), from the tsvectors' own lexemes: a word's
    frequency is the weights (title/aliases 5, path/headings 2, body/timeline 1) of the positions of
    its 'english' and 'simple' lexemes, a page's length its tokens (``search_len``, schema v59: FTS5's
    count, tests/test_pg_page_length.py)."""
    weight = {"A": 5.0, "B": 2.0, "C": 1.0, "D": 1.0}
    lex = [{r[0] for r in c.execute("SELECT unnest(tsvector_to_array(to_tsvector('english', ?) || to_tsvector('simple', ?)))", [w, w])} for w in words]
    tf: dict[int, list[float]] = {}
    dl: dict[int, int] = {}
    dl = {int(r[0]): int(r[1]) for r in c.execute("SELECT id, search_len FROM pages")}
    for pid, lexeme, positions, weights in c.execute("SELECT p.id, u.lexeme, u.positions, u.weights FROM pages p, unnest(p.search_tsv) u"):
        f = tf.setdefault(pid, [0.0] * len(words))
        for i, ls in enumerate(lex):
            if lexeme in ls:
                f[i] += sum(weight[x] for x in weights)
    n = len(dl)
    avgdl = sum(dl.values()) / n
    df = [sum(1 for f in tf.values() if f[i] > 0) for i in range(len(words))]
    idf = [max(1e-6, math.log((n - d + 0.5) / (d + 0.5))) for d in df]
    return {pid: sum(idf[i] * f[i] * 2.2 / (f[i] + 1.2 * (0.25 + 0.75 * dl[pid] / avgdl)) for i in range(len(words)) if f[i])
            for pid, f in tf.items()}


def test_search_scores_equal_bm25_computed_from_the_tsvectors(pg_url):
    """Postgres ranks with BM25 as FTS5 does (the shortcuts: a term's weighted frequency from
    ``ts_rank_cd`` of that term alone, the brain's totals from ``search_totals``): ``bm25`` of every ranked page equals BM25 computed from the
    tsvectors' lexemes in Python, for queries where some, one or no page has every word; a common
    word weighs (almost) nothing beside a rare one."""
    from gbrain.search import keyword

    with Brain.open(pg_url) as b:
        b.put("notes/both", "# Pricing plans\n\nOur pricing plans for 2024, and pricing again.\n")
        b.put("notes/one", "# Tariffs\n\nPricing remarks only. 2024 was a year.\n")
        b.put("notes/other", "# Plans\n\nPlanning the plans, planned in 2025.\n")
        b.put("notes/none", "# Weather\n\nRain and sun.\n")
        for i in range(8):
            b.put(f"notes/filler-{i}", f"# Filler {i}\n\nPricing notes {i}, and the weather in 2024.\n")
        c = b.conn
        for q in ("pricing plans", "pricing 2024", "2024", "plans tariffs weather", "who knows pricing?", "rain"):
            ref = _bm25_reference(c, keyword.query_words(q))
            got = keyword.rank(c, q, limit=20)
            assert got, q
            for h in got:
                assert h["bm25"] == pytest.approx(ref[h["id"]], rel=1e-5), (q, h)
        slug = {r[0]: r[1] for r in c.execute("SELECT id, slug FROM pages")}
        # `pricing` is in 10 of 12 pages, `tariffs` in one: that page first
        assert slug[keyword.rank(c, "pricing tariffs", limit=5)[0]["id"]] == "notes/one"


def test_search_stats_after_edits_equal_a_fresh_count(pg_url):
    """``search_totals`` (pages, lexemes, tokens: BM25's average length since v59) is kept by triggers in the writer's
    transaction: after creates, edits, a rename and deletes it equals a count over every page."""
    with Brain.open(pg_url) as b:
        c = b.conn

        def fresh():
            return tuple(int(x) for x in c.execute("SELECT count(*), coalesce(sum(length(search_tsv)), 0), coalesce(sum(gb_page_tokens(pages)), 0) FROM pages").fetchone())

        def kept():
            return tuple(int(x) for x in c.execute("SELECT pages, lexemes, tokens FROM search_totals").fetchone())

        assert kept() == fresh() == (0, 0, 0)
        for i in range(5):
            b.put(f"notes/n{i}", f"# Note {i}\n\nSome words about note {i}.\n")
        b.put("notes/n1", "# Note one\n\nA longer text now, with many more words than it had before.\n")
        b.put("notes/n2", "# Note 2\n\nShort.\n")
        b.delete_page("notes/n3")
        assert kept() == fresh() and kept()[0] == 4
        c.execute("BEGIN IMMEDIATE")
        c.execute("DELETE FROM pages")
        c.execute("ROLLBACK")
        assert kept() == fresh()


def test_writers_without_the_lock_never_wait_on_each_other_for_the_search_stats(pg_url):
    """Two connections writing different pages at once without gbrain's advisory lock (two
    processes on one team brain): the second's write does not wait for the first's transaction.
    Schema v18 kept the totals in one row that every write statement updated, so the second
    waited on it (here: its lock_timeout ends the statement; two such writers that then want each
    other's page deadlocked); since v19 each statement adds a row of its own and folds only the
    rows nobody holds (FOR UPDATE SKIP LOCKED). After both commit, the totals equal a fresh count
    and the rows are folded."""
    import psycopg

    with Brain.open(pg_url) as b:
        for s in ("notes/a", "notes/b"):
            b.put(s, f"# {s}\n\nA few words.\n")
    one, two = psycopg.connect(pg_url), psycopg.connect(pg_url)
    try:
        grow = "UPDATE pages SET compiled_truth = compiled_truth || ' more words, more lexemes' WHERE slug = %s"
        one.execute(grow, ("notes/a",))  # open transaction holding its page row (and v18's stats row)
        two.execute("SET lock_timeout = '20s'")  # a guard only: a write that takes no lock never reaches it
        two.execute(grow, ("notes/b",))
        two.commit()
        one.commit()
    finally:
        one.close()
        two.close()
    with Brain.open(pg_url) as b:
        c = b.conn
        fresh = c.execute("SELECT count(*), sum(length(search_tsv)) FROM pages").fetchone()
        assert tuple(map(int, c.execute("SELECT pages, lexemes FROM search_totals").fetchone())) == tuple(map(int, fresh))
        for i in range(10):
            b.put(f"notes/n{i}", f"note {i}\n")
        assert c.execute("SELECT count(*) FROM search_stats_part").fetchone()[0] == 1
        assert int(c.execute("SELECT pages FROM search_totals").fetchone()[0]) == 12


def test_v19_keeps_the_search_stats_and_the_ranking(pg_url, monkeypatch):
    """A brain made at schema v18 (one search_stats row): after v19 the totals (the view
    search_totals, which BM25 reads) are the same and equal a fresh count, the old table is gone;
    v18 and v19 run again (a re-run) end in v19's state."""
    from gbrain.search import keyword

    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 18)
    monkeypatch.setattr(keyword, "PG_TOKEN_LENGTH", False)  # (v19's ranking: a page's length in lexemes; tokens since v59)
    with Brain.open(pg_url) as b:
        writable_by_this_gbrain(b.conn)
        for i in range(12):
            b.put(f"notes/n{i}", f"# Note {i}\n\n{'pricing ' * (i % 3 + 1)}words about note {i}.\n")
        b.put("notes/t", "# Tariffs\n\npricing tariffs, a zebra.\n")
        b.delete_page("notes/n5")
        before = tuple(map(int, b.conn.execute("SELECT pages, lexemes FROM search_stats").fetchone()))
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 19)
    with Brain.open(pg_url) as b:
        c = b.conn
        assert pg.schema_version(c) == 19
        # (today's ranking reads every query string through v39's gb_fold: the function alone; and
        # labels a returned hit's name fields through v57's gb_alias_tsv)
        c.execute(pg._schema_sql(39).split("\nALTER TABLE")[0])
        c.execute(re.search(r"CREATE OR REPLACE FUNCTION gb_alias_tsv\(.*?\$\$.*?\$\$;", pg._schema_sql(57), re.S).group(0))
        assert c.execute("SELECT to_regclass('search_stats') IS NULL, (SELECT relkind FROM pg_class WHERE oid = to_regclass('search_totals'))").fetchone() == (True, "v")
        fresh = tuple(map(int, c.execute("SELECT count(*), sum(length(search_tsv)) FROM pages").fetchone()))
        assert tuple(map(int, c.execute("SELECT pages, lexemes FROM search_totals").fetchone())) == before == fresh
        slug = {r[0]: r[1] for r in c.execute("SELECT id, slug FROM pages")}
        assert slug[keyword.rank(c, "pricing tariffs", limit=5)[0]["id"]] == "notes/t"
        b.put("notes/n1", "# Note one\n\nA longer text now, with many more words than it had before.\n")
        b.delete_page("notes/n2")
        fresh = tuple(map(int, c.execute("SELECT count(*), sum(length(search_tsv)) FROM pages").fetchone()))
        assert tuple(map(int, c.execute("SELECT pages, lexemes FROM search_totals").fetchone())) == fresh
        with b.transaction():  # the versions run again (as a test of an older version's step makes them): v18, then v19
            c.execute("DELETE FROM gbrain_schema WHERE version >= 18")
    with Brain.open(pg_url) as b:
        c = b.conn
        assert pg.schema_version(c) == 19 and c.execute("SELECT to_regclass('search_stats') IS NULL").fetchone()[0]
        b.put("notes/n3", "# Note three\n\nNow a little longer than it was.\n")
        fresh = tuple(map(int, c.execute("SELECT count(*), sum(length(search_tsv)) FROM pages").fetchone()))
        assert tuple(map(int, c.execute("SELECT pages, lexemes FROM search_totals").fetchone())) == fresh
        assert c.execute("SELECT count(*) FROM search_stats_part").fetchone()[0] == 1


def test_query_ranks_the_vector_side_on_a_second_connection_with_the_same_hits(pg_url, brain_tree, monkeypatch):
    """Hybrid `query` on Postgres ranks the vectors on a second pooled connection while the
    keyword side runs on the brain's own; inside a transaction it stays on the one connection.
    Both give the same hits and scores."""
    from gbrain.search import hybrid
    from gbrain.search.embeddings import get_model

    out(gbrain("import", str(brain_tree), "--db", pg_url))
    out(gbrain("config", "set", "embedding_model", "fake-64", "--db", pg_url))
    out(gbrain("embed", "--db", pg_url))
    seen = []
    real = hybrid._pg_top_pages
    monkeypatch.setattr(hybrid, "_pg_top_pages", lambda *a: seen.append(a[3]) or real(*a))
    model = get_model("fake-64")
    with Brain.open(pg_url) as b:
        two = [hybrid.query(b, q, model=model, limit=5) for q in ("who knows jensen huang", "nvidia chips")]
        assert len(seen) == 2 and seen[0] == hybrid.CANDIDATES
        b.conn.execute("BEGIN")
        one = [hybrid.query(b, q, model=model, limit=5) for q in ("who knows jensen huang", "nvidia chips")]
        b.conn.rollback()
        assert len(seen) == 2  # not used inside a transaction
    assert one == two and all(r["mode"] == "hybrid" and r["hits"] for r in two)


def test_vectors_are_kept_in_the_row_from_schema_v12(pg_url, monkeypatch):
    """pgvector's ``vec`` has storage MAIN from schema v12 (``pg_v12.sql``): a 384-float vector
    stays in its row and only the float32 copy in ``embedding`` goes to the TOAST table (before,
    ``vec`` went out of line and every HNSW hit's score and every re-scored chunk read it from
    there). The migration changes only the catalog: a vector stored before stays where it is,
    and both read back the same."""
    import numpy as np

    from gbrain.storage.pg import pg_vector_text

    def add(b, i: int) -> np.ndarray:
        v = np.random.default_rng(i).standard_normal(384).astype(np.float32)
        pid = b.conn.execute("SELECT id FROM pages WHERE slug = ?", (f"notes/n{i}",)).fetchone()[0]
        b.conn.execute("INSERT INTO page_embeddings(page_id, chunk_index, chunk_text, embedding, model, text_hash, dims, vec) "
                       "VALUES (?, 0, 't', ?, 'fake-384', ?, 384, ?::vector)", (pid, v.tobytes(), f"h{i}", pg_vector_text(v)))
        return np.array(json.loads(pg_vector_text(v)), dtype=np.float32)  # what was stored

    def out_of_line(b) -> list[int]:
        """Sizes of the values in page_embeddings' TOAST table (1,536: an `embedding`; 1,540: a `vec`)."""
        toast = b.conn.execute("SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'page_embeddings'").fetchone()[0]
        return sorted(r[0] for r in b.conn.execute(f"SELECT sum(length(chunk_data)) FROM {toast} GROUP BY chunk_id"))

    def storage(b) -> str:
        return b.conn.execute("SELECT attstorage FROM pg_attribute WHERE attrelid = 'page_embeddings'::regclass AND attname = 'vec'").fetchone()[0]

    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 11)
    with Brain.open(pg_url) as b:
        writable_by_this_gbrain(b.conn)
        for i in range(2):
            b.put(f"notes/n{i}", f"# Note {i}\n\nText.\n")
        old = add(b, 0)
        assert storage(b) == "e" and out_of_line(b) == [1540]  # the vector went out, the bytes stayed
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 12)
    with Brain.open(pg_url) as b:
        assert storage(b) == "m"
        new = add(b, 1)
        assert out_of_line(b) == [1536, 1540]  # the new row's `embedding`; its vector is in the row
        got = {r[0]: np.array(json.loads(r[1]), dtype=np.float32) for r in b.conn.execute("SELECT text_hash, vec::text FROM page_embeddings")}
        assert np.array_equal(got["h0"], old) and np.array_equal(got["h1"], new)


def test_pooled_connections_keep_hnsw_ef_search_and_reset_every_other_setting(pg_url):
    """A connection goes back to the pool with its session as it was made, but for pgvector's
    ``hnsw.ef_search``, which ``set_ef_search`` remembers with the pooled connection: the next
    borrower that wants the same breadth needs no round trip for it. A connection that changed
    any other setting (``PRAGMA query_only``, a ``SET``, the writer's origin) is reset, the
    breadth with it; so is one that set the breadth inside a transaction."""
    c = pg.PgConnection(pg_url)
    raw = c._conn
    c.set_ef_search(77)
    c.close()
    c = pg.PgConnection(pg_url)
    assert c._conn is raw and pg._EF_SEARCH.get(raw) == 77  # (the pool handed the same one back)
    sent = []
    real = raw.execute
    raw.execute = lambda q, *a, **k: (sent.append(q), real(q, *a, **k))[1]
    try:
        c.set_ef_search(77)
        assert sent == [] and c.execute("SHOW hnsw.ef_search").fetchone()[0] == "77"
        c.execute("PRAGMA query_only = ON")
        c.close()
    finally:
        raw.execute = real
    c = pg.PgConnection(pg_url)
    assert c._conn is raw and raw not in pg._EF_SEARCH
    assert c.execute("SHOW default_transaction_read_only").fetchone()[0] == "off"
    assert c.execute("SHOW hnsw.ef_search").fetchone()[0] in ("", "40")  # the default again (unset before pgvector loads)
    c.execute("BEGIN")
    c.set_ef_search(55)
    c.execute("COMMIT")
    c.close()
    c = pg.PgConnection(pg_url)
    assert c.execute("SHOW hnsw.ef_search").fetchone()[0] in ("", "40") and c._conn not in pg._EF_SEARCH
    c.set_ef_search(66)
    c.execute("SET enable_seqscan = off")
    c.close()
    c = pg.PgConnection(pg_url)
    assert c.execute("SHOW enable_seqscan").fetchone()[0] == "on" and c.execute("SHOW hnsw.ef_search").fetchone()[0] in ("", "40")
    c.close()


def test_rows_of_one_shape_share_a_maker_and_a_column_of_another_type_is_another_shape(pg_url):
    """Rows are made by a maker kept per result shape (``pg._ROW_MAKERS``: each column's name and
    type): the same names with another type (bytea, numeric: converted as SQLite gives them) or
    another order are another shape; a result without columns (``SELECT ;``), a write's, has no rows."""
    c = pg.PgConnection(pg_url)
    try:
        one = c.execute("SELECT 'x'::text AS v, 2 AS n").fetchone()
        assert one == ("x", 2) and one["V"] == "x" and one["n"] == 2 and one.keys() == ["v", "n"]
        assert c.execute("SELECT 'y'::text AS v, 3 AS n").fetchall() == [("y", 3)]
        assert type(c.execute("SELECT 'z'::text AS v, 4 AS n").fetchone()) is type(one)  # (made once)
        got = c.execute("SELECT '\\x01ff'::bytea AS v, 2 AS n").fetchone()["v"]
        assert type(got) is bytes and got == b"\x01\xff"  # (a memoryview equals the bytes too)
        got = c.execute("SELECT 1.5::numeric AS v, 2.0::numeric AS n").fetchone()
        assert [(type(v), v) for v in got] == [(float, 1.5), (int, 2)]  # (a Decimal equals them too)
        swapped = c.execute("SELECT 2 AS n, 'x'::text AS v").fetchone()
        assert swapped["v"] == "x" and swapped.keys() == ["n", "v"]
        assert c.execute("SELECT 'x'::text AS v, 2 AS n").fetchone()["v"] == "x"
        empty = c.execute("SELECT ;")
        assert empty.fetchone() == () and empty.description == []
        c.execute("CREATE TEMP TABLE t (a int)")
        w = c.execute("INSERT INTO t VALUES (1)")
        assert w.description is None and w.fetchone() is None and w.fetchall() == [] and w.fetchmany(2) == []
    finally:
        c.close()


def test_a_vector_written_for_pgvector_reads_back_as_the_same_float32s():
    """pgvector's text form with 8 significant digits did not always give the float32 back (a
    copy's vectors differed from SQLite's in the last bit); 9 digits round-trip every one."""
    import numpy as np

    from gbrain.storage.pg import pg_vector_text

    rng = np.random.default_rng(7)
    v = np.concatenate([rng.standard_normal(4096).astype(np.float32), np.array([1e-38, 3.4e38, -0.0, 1 / 3], dtype=np.float32)])
    back = np.array([float(x) for x in pg_vector_text(v.tobytes())[1:-1].split(",")], dtype=np.float32)
    assert back.tobytes() == v.tobytes()
