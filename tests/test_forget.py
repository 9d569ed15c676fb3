"""Trial 21, "the user who must forget": a secret pasted into a page, then taken out, must be
removable from everything gbrain stores (history bodies, the search index, embeddings' chunk
texts, free pages of the file), and only by an explicit command of the user's.

The CLI runs in the test's process (``conftest.gbrain_in_process``): these tests are about what
purge, delete and sync do, not about the process (``tests/test_cli.py`` runs real ones)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from gbrain.core import history as h
from gbrain.core.brain import Brain
from gbrain.operations import run

SECRET = "sk-proj-ZQX9k2LmN8pWvR4tYu7"
# what the search index keeps of it: unicode61 folds case and cuts at '-'
TOKEN = SECRET.rsplit("-", 1)[1].lower().encode()

BODY = "---\ntitle: Deploy notes\n---\n# Deploy\n\n" + "Staging runs on the small cluster; deploys go out at noon.\n" * 30


def page(with_secret: bool) -> str:
    return BODY + (f"Use key {SECRET} for the staging API.\n" if with_secret else "Use key (redacted) for the staging API.\n") + "More text.\n" * 20


def bodies_holding(b, needle: bytes) -> list[int]:
    """The ids of the history bodies whose decoded bytes hold ``needle``."""
    return [bid for (bid,) in b.conn.execute("SELECT id FROM history_bodies").fetchall()
            if needle in h.body(b.conn, bid)]


def stored_bytes(db) -> bytes:
    """Every byte the brain's storage holds on disk, case-folded: the SQLite file and its -wal,
    or the Postgres database's files."""
    if str(db).startswith("postgres"):
        import psycopg

        with psycopg.connect(str(db), autocommit=True) as c:
            c.execute("CHECKPOINT")
            ddir = c.execute("SHOW data_directory").fetchone()[0]
            oid = c.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]
        root = Path(ddir) / "base" / str(oid)
        return b"".join(p.read_bytes() for p in root.iterdir() if p.is_file()).lower()
    out = b""
    for suffix in ("", "-wal"):
        p = Path(str(db) + suffix)
        if p.exists():
            out += p.read_bytes()
    return out.lower()


def test_a_pruned_version_leaves_no_text_behind_in_the_bodies_kept(db_path):
    """history-prune of the version that held a secret: the version kept after it was stored as
    a delta against it, so the pruned body stayed as that delta's base and its bytes (deflated,
    invisible to `strings`) could still be decoded from the file."""
    with Brain.open(db_path) as b:
        b.put("ops/deploy", page(True))
        b.put("ops/deploy", page(False))
        b.put("ops/deploy", page(False) + "A line added later.\n")
        assert bodies_holding(b, SECRET.encode())
        done = run("history-prune", {"slug": "ops/deploy", "keep_last": 1, "keep_days": 0, "apply": True}, brain=b)
        assert done["applied"] and done["versions"] == 2
        assert bodies_holding(b, SECRET.encode()) == []
        # the kept version reads back exactly
        assert b.get_text("ops/deploy") == page(False) + "A line added later.\n"
        assert [v["version"] for v in h.versions(b, "ops/deploy", limit=0)["versions"]] == [3]
        assert run("get", {"slug": "ops/deploy", "version": 3}, brain=b)["content"] == page(False) + "A line added later.\n"


def test_purge_removes_a_secret_from_everything_the_brain_stores(db_path):
    """The persona: a key pasted into a page (and embedded), then taken out; a copy of it in a page
    since deleted (the trash). `gbrain purge --text KEY` refuses while a live page holds it
    (naming the page), lists what would go as a dry run, and with --apply leaves no byte of it in
    the database's files: history versions and bodies, the search index's segments, stale chunk
    texts; the edited page, other pages' versions and the purge's record (without the key) stay."""
    from conftest import gbrain_in_process as gbrain

    other = "---\ntitle: Other\n---\nNothing to hide here.\n"
    with Brain.open(db_path) as b:
        b.set_config("embedding_model", "fake-32")
        b.put("ops/deploy", page(True))
        run("embed", {}, brain=b)
        b.put("ops/deploy", page(False))  # taken out; its stored chunks still hold the key
        b.put("ops/old", page(True))
        run("delete", {"slug": "ops/old"}, brain=b)  # in the trash
        b.put("ops/other", other)
        b.put("ops/other", other + "Second version.\n")
        b.put("ops/live", f"The key {SECRET} again.\n")
    assert TOKEN in stored_bytes(db_path)

    r = gbrain("purge", "--text", SECRET, "--apply")
    assert r.returncode == 2, r.stderr
    assert b"ops/live" in r.stderr and b"delete" in r.stderr  # says which page still holds it, and what to do
    with Brain.open(db_path) as b:
        assert bodies_holding(b, SECRET.encode())  # nothing went

    assert gbrain("delete", "ops/live").returncode == 0
    import json

    dry = gbrain("purge", "--text", SECRET, "--json")
    assert dry.returncode == 0, dry.stderr
    plan = json.loads(dry.stdout)
    assert plan["applied"] is False and plan["live"] == []
    assert {v["name"] for v in plan["items"]} == {"ops/deploy", "ops/old", "ops/live"}
    assert SECRET.encode() not in dry.stdout  # the answer never repeats it
    with Brain.open(db_path) as b:
        assert bodies_holding(b, SECRET.encode())  # a dry run

    r = gbrain("purge", "--text", SECRET, "--apply")
    assert r.returncode == 0, r.stderr
    assert SECRET.encode() not in r.stdout + r.stderr
    blob = stored_bytes(db_path)
    assert TOKEN not in blob and SECRET.lower().encode() not in blob
    with Brain.open(db_path) as b:
        assert bodies_holding(b, SECRET.encode()) == []
        assert b.get_text("ops/deploy") == page(False)
        assert [v["version"] for v in h.versions(b, "ops/deploy", limit=0)["versions"]] == [2]
        assert [v["version"] for v in h.versions(b, "ops/other", limit=0)["versions"]] == [2, 1]
        trash = {t["slug"] for t in h.trash_list(b)}
        assert "ops/old" not in trash and "ops/live" not in trash, trash
        assert run("search", {"query": SECRET.rsplit("-", 1)[1]}, brain=b) == []
        assert not b.conn.execute("SELECT COUNT(*) FROM page_embeddings WHERE chunk_text LIKE ?", (f"%{SECRET}%",)).fetchone()[0]
        log = json.loads(b.get_config("purge_log"))
        assert log[-1]["versions"] == len(plan["items"]) and SECRET not in json.dumps(log)


@pytest.mark.engine_free
def test_purge_rewrites_the_file_where_freed_pages_keep_their_bytes(tmp_path):
    """A SQLite built without SECURE_DELETE (this machine's Debian build has it on) leaves a
    deleted row's bytes in the freed page: the purge's VACUUM rewrites the file without them."""
    db = tmp_path / "brain.db"
    with Brain.open(db) as b:
        b.put("ops/deploy", page(True))
        b.put("ops/deploy", page(False))
    with Brain.open(db) as b:
        real = b.conn.execute
        b.conn.execute("PRAGMA secure_delete = OFF")

        class NoSecureDelete:  # the purge's own PRAGMA secure_delete = ON has no effect, as on such a build
            def __getattr__(self, name):
                return getattr(b.conn_real, name)

            def execute(self, sql, *args):
                return real("SELECT 0", ()) if "secure_delete" in sql else real(sql, *args)

        from gbrain.core.purge import purge

        b.conn_real = b.conn
        b.conn = NoSecureDelete()
        try:
            r = purge(b, text=SECRET, apply=True)
        finally:
            b.conn = b.conn_real
        assert r["applied"] and r["vacuumed"] and r["versions"] == 1
    assert SECRET.lower().encode() not in stored_bytes(db) and TOKEN not in stored_bytes(db)


def test_a_person_asks_to_be_forgotten(db_path):
    """Their page and every mention go, versions included: `purge SLUG` takes a deleted page's
    whole history (its name too: no history row, no trash entry names it), `purge --text NAME`
    every version of other pages that mentioned them. A live page is refused (delete it first);
    purge is no MCP tool: an agent cannot reach it."""
    import json

    from conftest import gbrain_in_process as gbrain

    with Brain.open(db_path) as b:
        b.put("people/jane-roe", "---\ntitle: Jane Roe\n---\nJane Roe, met at the conference.\n")
        b.put("people/jane-roe", "---\ntitle: Jane Roe\n---\nJane Roe, met at the conference. Phone 555-0199.\n")
        b.put("meetings/kickoff", "# Kickoff\n\nAttendees: [[people/jane-roe]] (Jane Roe), Bo.\n")
        b.put("meetings/kickoff", "# Kickoff\n\nAttendees: Bo.\n")  # the mention edited out
    refused = gbrain("purge", "people/jane-roe", "--apply")
    assert refused.returncode == 2 and b"delete" in refused.stderr
    assert gbrain("delete", "people/jane-roe").returncode == 0
    r = gbrain("purge", "people/jane-roe", "--apply", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["versions"] == 3  # two texts and the deletion
    r = gbrain("purge", "--text", "Jane Roe", "--apply")
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        names = {n for (n,) in b.conn.execute("SELECT name FROM history")}
        assert "people/jane-roe" not in names
        assert bodies_holding(b, b"Jane Roe") == [] and bodies_holding(b, b"jane-roe") == []
        assert [v["version"] for v in h.versions(b, "meetings/kickoff", limit=0)["versions"]] == [2]
        assert all(t["slug"] != "people/jane-roe" for t in h.trash_list(b))
    if not str(db_path).startswith("postgres"):
        blob = stored_bytes(db_path)
        assert b"555-0199" not in blob and b"jane roe" not in blob
    tools = json.loads(gbrain("--tools-json").stdout)
    assert not [t for t in tools if "purge" in t["name"]]


@pytest.mark.engine_free
def test_a_new_brain_file_is_readable_by_its_owner_only(tmp_path, monkeypatch):
    """brain.db holds every version of every page (keys pasted by mistake, people's notes): a new
    one is 0600 whatever the umask (it was 0644 under the usual 022: any user of the machine could
    read it); its -wal and -shm follow (SQLite gives them the database file's mode). An existing
    file keeps the mode its owner gave it."""
    from conftest import gbrain_in_process as gbrain

    old = os.umask(0o022)
    try:
        db = tmp_path / "brain.db"
        r = gbrain("--db", str(db), "put", "notes/a", input="# A\n\ntext\n")
    finally:
        os.umask(old)
    assert r.returncode == 0, r.stderr
    assert db.stat().st_mode & 0o777 == 0o600
    with Brain.open(db) as b:
        b.put("notes/a", "# A\n\nmore text\n")
        for suffix in ("-wal", "-shm"):
            side = Path(str(db) + suffix)
            if side.exists():
                assert side.stat().st_mode & 0o077 == 0, suffix
    shared = tmp_path / "shared.db"
    with Brain.open(shared):
        pass
    shared.chmod(0o640)
    with Brain.open(shared) as b:
        b.put("notes/b", "# B\n")
    assert shared.stat().st_mode & 0o777 == 0o640


def test_purge_names_the_files_of_the_bound_folder_that_still_hold_the_text(tmp_path, db_path):
    """The brain is one copy; the folder it syncs with holds others gbrain never imported (an
    ignored `secrets/` file, an editor's backup) or will import again. purge does not touch them
    (they are the user's files) but names every one that holds the text, in the dry run and
    after --apply, so "removed from everywhere" is not claimed for the folder."""
    from conftest import gbrain_in_process as gbrain, write_tree

    root = write_tree(tmp_path / "vault", {
        ".gbrainignore": "secrets/\n",
        "secrets/keys.txt": f"staging {SECRET}\n",
        "ops/deploy.md": page(False),
        "ops/deploy.md.bak": page(True),  # an editor's backup (skipped by import)
    })
    assert gbrain("sync", str(root)).returncode == 0
    with Brain.open(db_path) as b:
        b.put("ops/notes", page(True))
        b.put("ops/notes", page(False))
    import json

    for args in ((), ("--apply",)):
        r = gbrain("purge", "--text", SECRET, "--json", *args)
        assert r.returncode == 0, r.stderr
        assert sorted(json.loads(r.stdout)["folder"]) == sorted([str(root / "secrets/keys.txt"), str(root / "ops/deploy.md.bak")])
    r = gbrain("purge", "--text", SECRET)
    assert str(root / "secrets/keys.txt") in r.stdout.decode() and SECRET not in r.stdout.decode()


def test_purge_drops_only_the_conflict_records_that_name_the_text(db_path):
    """purge --text dropped the conflict records whose path matched the text as a LIKE pattern:
    a key holding '_' or '%' (``sk_live_…``: '_' matches any character) also dropped records of
    other paths (``people/ana-lima.md`` for the text ``ana_lima``). Only a path that holds the
    text as written goes, as ingest records are matched (``instr``)."""
    with Brain.open(db_path) as b:
        b.put("notes/old", "# Old\n\nthe name ana_lima was here\n")
        run("delete", {"slug": "notes/old"}, brain=b)
        with b.transaction():
            for path in ("people/ana-lima.md", "people/ana_lima.md"):
                b.conn.execute("INSERT INTO sync_conflicts(path, copy_path, kind) VALUES (?, ?, 'both-changed')", (path, path + ".conflict"))
        r = run("purge", {"text": "ana_lima", "apply": True}, brain=b)
        assert r["applied"] is True
        left = [row[0] for row in b.conn.execute("SELECT path FROM sync_conflicts ORDER BY path")]
        assert left == ["people/ana-lima.md"], left


def test_a_dry_run_that_would_be_refused_says_so_and_exits_as_the_apply_would(db_path):
    """`purge --text` while a current page holds the text: `--apply` is refused (exit 2); the dry
    run listed what would go and exited 0, as if the purge could be run. It says the purge would be
    refused and why, and exits 2 too (JSON: `refused` and `exit_code`); a dry run that could be
    applied exits 0."""
    import json

    from conftest import gbrain_in_process as gbrain

    with Brain.open(db_path) as b:
        b.put("ops/deploy", page(True))
        b.put("ops/deploy", page(False))
        b.put("ops/live", f"The key {SECRET} again.\n")
    applied = gbrain("purge", "--text", SECRET, "--apply")
    assert applied.returncode == 2
    dry = gbrain("purge", "--text", SECRET)
    assert dry.returncode == applied.returncode, dry.stdout
    text = dry.stdout.decode() + dry.stderr.decode()
    assert "refused" in text and "ops/live" in text and SECRET not in text
    js = gbrain("purge", "--text", SECRET, "--json")
    assert js.returncode == 2
    r = json.loads(js.stdout)
    assert r["refused"] and r["exit_code"] == 2 and r["live"] == ["ops/live"] and r["applied"] is False
    assert gbrain("delete", "ops/live").returncode == 0
    ok = gbrain("purge", "--text", SECRET, "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["refused"] is False


def test_purge_drops_the_cached_vectors_of_the_text_and_keeps_the_others(db_path):
    """`embedding_cache` keeps the vectors of retired chunks (a page edited since it was embedded)
    so the same text is never sent to a provider twice. The purge dropped every one no current
    chunk used: the unrelated pages' too, which a paid provider then embeds again on a revert.
    It drops the vectors of chunks whose text held the purged text (the versions it purges, the
    stale chunk sets it drops) and keeps every other, the purged page's unrelated chunks included."""
    from gbrain.search.chunking import text_hash

    notes = "---\ntitle: Notes\n---\n# Notes\n\n## Plans\n\nShip the beta in March.\n\n## People\n\nBo leads it.\n"
    with Brain.open(db_path) as b:
        b.set_config("embedding_model", "fake-32")
        b.put("ops/deploy", page(True) + "\n## Later\n\nA section that never held it.\n")
        b.put("ops/notes", notes)
        run("embed", {}, brain=b)
        holding = {r[0] for r in b.conn.execute("SELECT text_hash FROM page_embeddings WHERE instr(chunk_text, ?) > 0", (SECRET,))}
        assert holding
        b.put("ops/deploy", page(False) + "\n## Later\n\nA section that never held it, edited.\n")
        b.put("ops/notes", notes.replace("March", "April"))
        run("embed", {}, brain=b)  # both retired their old chunks into the cache
        b.put("ops/stale", f"---\ntitle: Stale\n---\n## One\n\nThe key {SECRET} here.\n\n## Two\n\nNothing here.\n")
        run("embed", {}, brain=b)
        stale = {r[0]: SECRET in r[1] for r in b.conn.execute("SELECT text_hash, chunk_text FROM page_embeddings e JOIN pages p ON p.id = e.page_id WHERE p.slug = 'ops/stale'")}
        b.put("ops/stale", "---\ntitle: Stale\n---\n## One\n\nThe key (gone) here.\n\n## Two\n\nNothing here.\n")  # not embedded since
        cached = {r[0] for r in b.conn.execute("SELECT text_hash FROM embedding_cache")}
        assert holding <= cached
        assert text_hash("Notes — Plans\nShip the beta in March.") in cached  # an unrelated retired chunk
    r = run("purge", {"text": SECRET, "apply": True})
    assert r["applied"] and r["chunks"] == 1
    with Brain.open(db_path) as b:
        after = {r[0] for r in b.conn.execute("SELECT text_hash FROM embedding_cache")}
        gone = holding | {h for h, held in stale.items() if held}
        assert not (after & gone)
        assert after == (cached - gone) | {h for h, held in stale.items() if not held}, (after ^ ((cached - gone)))


def _renamed_twice(tmp_path, end: str) -> None:
    """people/jane-doe.md imported, edited, renamed to jd.md, edited, renamed to j.md; ``end``
    "edited": the diagnosis edited out of j.md; "deleted": j.md's page deleted."""
    from conftest import gbrain_in_process as gbrain

    v = tmp_path / "vault"
    (v / "people").mkdir(parents=True)
    f = v / "people" / "jane-doe.md"

    def imp():
        assert gbrain("import", str(v)).returncode == 0

    f.write_text("---\ntitle: Jane Doe\n---\nJane Doe, diagnosis X.\n"); imp()
    f.write_text("---\ntitle: Jane Doe\n---\nJane Doe, diagnosis X. Phone 555-0199.\n"); imp()
    f = f.rename(v / "people" / "jd.md"); imp()
    f.write_text("---\ntitle: JD\n---\nJD, diagnosis X. Phone 555-0199. Seen twice.\n"); imp()
    f = f.rename(v / "people" / "j.md"); imp()
    if end == "edited":
        f.write_text("---\ntitle: J\n---\nJ, seen twice.\n"); imp()
    else:
        assert gbrain("delete", "people/j").returncode == 0


def test_one_purge_reaches_every_version_under_every_old_name(tmp_path, db_path):
    """A page renamed twice (import follows the renames: one page, three names). `purge --text`
    reaches the versions under every old name in one run; `purge SLUG` of the deleted page took
    only its last name's history, and the versions under jd and jane-doe (the diagnosis, the
    phone) stayed: one run per old name. It takes the page's whole history, every name it had."""
    from conftest import gbrain_in_process as gbrain

    _renamed_twice(tmp_path, "edited")
    r = gbrain("purge", "--text", "diagnosis X", "--apply")
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert bodies_holding(b, b"diagnosis X") == [] and bodies_holding(b, b"555-0199") == []
        names = {n for (n,) in b.conn.execute("SELECT name FROM history")}
        assert names == {"people/j"}, names
        assert b.get_text("people/j") == "---\ntitle: J\n---\nJ, seen twice.\n"


def test_purge_slug_takes_every_name_of_a_renamed_deleted_page(tmp_path, db_path):
    """`purge SLUG` of a page deleted after two renames (see above): one run, every old name."""
    import json

    from conftest import gbrain_in_process as gbrain

    _renamed_twice(tmp_path, "deleted")
    for name in ("people/j", "people/jane-doe"):  # its last name, or its first
        dry = json.loads(gbrain("purge", name, "--json").stdout)
        assert {i["name"] for i in dry["items"]} == {"people/j", "people/jd", "people/jane-doe"}, (name, dry)
    r = gbrain("purge", "people/j", "--apply")
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM history").fetchone()[0] == 0
        assert bodies_holding(b, b"diagnosis X") == []


@pytest.mark.parametrize("how", ["slug", "text"])
def test_purge_takes_the_path_out_of_the_sync_change_log(tmp_path, db_path, how):
    """The path may be the secret (`people/jane-doe-diagnosis.md`). A page deleted through gbrain
    before the folder synced, then purged (or the text its name holds): the sync change log still
    named the path (a client asking what changed since its cursor learnt it), and so did the sync
    base (`sync_state`) of the folder, which no longer holds the file. The purge drops both (rows
    of a path no longer current); the folder's next sync has nothing to do."""
    from conftest import gbrain_in_process as gbrain

    v = tmp_path / "vault"
    (v / "people").mkdir(parents=True)
    (v / "people" / "bo.md").write_text("# Bo\n\nA friend.\n")
    assert gbrain("import", str(v)).returncode == 0
    secret = v / "people" / "jane-doe-diagnosis.md"
    secret.write_text("# Notes\n\nSeen on Monday.\n")
    assert gbrain("sync", str(v)).returncode == 0
    assert gbrain("delete", "people/jane-doe-diagnosis").returncode == 0
    secret.unlink()  # gone from the folder too, before any sync
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM change_log WHERE path = 'people/jane-doe-diagnosis.md'").fetchone()[0] >= 1
        assert b.conn.execute("SELECT COUNT(*) FROM sync_state WHERE path = 'people/jane-doe-diagnosis.md'").fetchone()[0] == 1
    r = gbrain("purge", *(["people/jane-doe-diagnosis"] if how == "slug" else ["--text", "jane-doe-diagnosis"]), "--apply")
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        c = b.conn
        for table in ("change_log", "sync_state", "sync_conflicts", "history"):
            col = "path" if table != "history" else "name"
            assert not c.execute(f"SELECT {col} FROM {table} WHERE instr({col}, 'jane-doe') > 0").fetchall(), table
        assert c.execute("SELECT COUNT(*) FROM sync_state WHERE path = 'people/bo.md'").fetchone()[0] == 1
    if not str(db_path).startswith("postgres"):
        assert b"jane-doe" not in stored_bytes(db_path)
    s = gbrain("sync", str(v), "--json")
    assert s.returncode == 0, s.stderr
    assert sorted(p.name for p in (v / "people").iterdir()) == ["bo.md"]
    with Brain.open(db_path) as b:
        assert not b.conn.execute("SELECT 1 FROM history WHERE instr(name, 'jane-doe') > 0").fetchall()


def test_purge_keeps_the_sync_base_of_a_folder_that_still_holds_the_file(tmp_path, db_path):
    """The same page deleted through gbrain while its file is still in the folder (no sync
    since): the purge keeps that folder's base of the path (without it the next sync would import
    the file as a new note) and names the file; the log row goes all the same."""
    import json

    from conftest import gbrain_in_process as gbrain

    v = tmp_path / "vault"
    (v / "people").mkdir(parents=True)
    assert gbrain("import", str(v)).returncode == 0
    secret = v / "people" / "jane-doe-diagnosis.md"
    secret.write_text("# Notes\n\nSeen on Monday.\n")
    assert gbrain("sync", str(v)).returncode == 0
    assert gbrain("delete", "people/jane-doe-diagnosis").returncode == 0
    r = gbrain("purge", "people/jane-doe-diagnosis", "--apply", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["folder"] == [str(secret)]
    with Brain.open(db_path) as b:
        assert not b.conn.execute("SELECT 1 FROM change_log WHERE instr(path, 'jane-doe') > 0").fetchall()
        assert b.conn.execute("SELECT COUNT(*) FROM sync_state WHERE path = 'people/jane-doe-diagnosis.md'").fetchone()[0] == 1


def test_purge_slug_drops_the_conflict_records_of_the_page(tmp_path, db_path):
    """`purge SLUG` dropped the conflict records whose path was the slug: a page's records name
    its file (`notes/plan.md`), so they stayed, naming the purged page. They go."""
    from conftest import gbrain_in_process as gbrain

    v = tmp_path / "vault"
    (v / "notes").mkdir(parents=True)
    f = v / "notes" / "plan.md"
    f.write_text("# Plan\n\nfirst\n")
    assert gbrain("import", str(v)).returncode == 0
    f.write_text("# Plan\n\nedited in the folder\n")
    with Brain.open(db_path) as b:
        b.put("notes/plan", "# Plan\n\nedited in the brain\n")
    assert gbrain("sync", str(v)).returncode == 3  # a conflict
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM sync_conflicts WHERE path = 'notes/plan.md'").fetchone()[0] == 1
    assert gbrain("delete", "notes/plan").returncode == 0
    with Brain.open(db_path) as b:  # (its copy, the brain's version, too: a current copy refuses the purge, below)
        b.delete_page(b.conn.execute("SELECT p.slug FROM pages p JOIN sync_conflicts s ON s.copy_path = p.path").fetchone()[0])
    r = gbrain("purge", "notes/plan", "--apply")
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM sync_conflicts WHERE path = 'notes/plan.md'").fetchone()[0] == 0


def test_purge_of_a_name_drops_the_cached_vectors_of_its_pages_chunks(db_path):
    """A page whose name is the secret (`people/jane-doe-diagnosis`, no title: the chunks start
    with its file name), embedded, then deleted: its vectors are in the cache. `purge --text` of
    the name drops its versions (the name holds it) and their chunks' cached vectors with them."""
    with Brain.open(db_path) as b:
        b.set_config("embedding_model", "fake-32")
        b.put("people/jane-doe-diagnosis", "Seen on Monday.\n\n## Later\n\nAgain on Friday.\n")
        b.put("notes/other", "# Other\n\nUnrelated.\n")
        run("embed", {}, brain=b)
        mine = {r[0] for r in b.conn.execute("SELECT text_hash FROM page_embeddings e JOIN pages p ON p.id = e.page_id WHERE p.slug = 'people/jane-doe-diagnosis'")}
        other = {r[0] for r in b.conn.execute("SELECT text_hash FROM page_embeddings e JOIN pages p ON p.id = e.page_id WHERE p.slug = 'notes/other'")}
        run("delete", {"slug": "people/jane-doe-diagnosis"}, brain=b)
        b.put("notes/other", "# Other\n\nUnrelated, edited.\n")
        run("embed", {}, brain=b)
        cached = {r[0] for r in b.conn.execute("SELECT text_hash FROM embedding_cache")}
        assert mine and mine <= cached and other <= cached
    r = run("purge", {"text": "jane-doe-diagnosis", "apply": True})
    assert r["applied"] and r["versions"] == 2
    with Brain.open(db_path) as b:
        after = {r[0] for r in b.conn.execute("SELECT text_hash FROM embedding_cache")}
        assert not (after & mine) and other <= after


def _deleted_then_purged(tmp_path):
    """A page holding the secret, synced to a folder, deleted in the brain (the folder has not
    synced since), then purged by its text: ``(vault, file)``."""
    from conftest import gbrain_in_process as gbrain

    v = tmp_path / "vault"
    (v / "ops").mkdir(parents=True)
    (v / "ops" / "other.md").write_text("# Other\n\nNothing secret.\n")
    assert gbrain("import", str(v)).returncode == 0
    f = v / "ops" / "deploy.md"
    f.write_text(page(True))
    assert gbrain("sync", str(v)).returncode == 0
    assert gbrain("delete", "ops/deploy").returncode == 0
    r = gbrain("purge", "--text", SECRET, "--apply")
    assert r.returncode == 0, r.stderr
    return v, f


def test_a_folder_synced_after_the_purge_does_not_bring_the_purged_text_back(tmp_path, db_path):
    """Found by the prunepurge helper (2026-12-04): the folder's next sync removed the deleted
    page's file, but first kept its bytes in the trash ("never lose bytes a writer had": the
    history no longer held them), so the purged text was back in the brain. A file whose bytes
    are those of a purged version is removed without a copy, and the report says so."""
    import json

    from conftest import gbrain_in_process as gbrain

    v, f = _deleted_then_purged(tmp_path)
    s = gbrain("sync", str(v), "--json")
    assert s.returncode == 0, s.stderr
    rep = json.loads(s.stdout)
    assert not f.exists()
    assert rep["purged_removed"] == ["ops/deploy.md"]
    with Brain.open(db_path) as b:
        assert bodies_holding(b, SECRET.encode()) == []
        assert not b.conn.execute("SELECT 1 FROM history WHERE name = 'ops/deploy'").fetchall()
        from gbrain.core.purge import purge

        assert purge(b, text=SECRET)["versions"] == 0
    if not str(db_path).startswith("postgres"):
        assert gbrain("purge", "--text", "nothing-left-xyz", "--apply").returncode == 0  # VACUUM
        assert SECRET.lower().encode() not in stored_bytes(db_path)
    t = gbrain("sync", str(v))
    assert t.returncode == 0, t.stderr


def test_the_purged_text_is_no_copy_in_the_text_report_either(tmp_path, db_path):
    from conftest import gbrain_in_process as gbrain

    v, f = _deleted_then_purged(tmp_path)
    s = gbrain("sync", str(v))
    assert s.returncode == 0, s.stderr
    out = s.stdout.decode()
    assert "ops/deploy.md" in out and "purged" in out
    assert "gbrain restore" not in out


def test_a_file_edited_after_the_purge_is_kept_as_the_users_bytes(tmp_path, db_path):
    """Only a purged version's exact bytes go without a copy: a file the user edited since (other
    bytes) is what it was before: a delete/edit conflict, the edited note put back (exit 3); its
    new bytes are theirs."""
    import json

    from conftest import gbrain_in_process as gbrain

    v, f = _deleted_then_purged(tmp_path)
    f.write_text(page(False) + "edited after the purge\n")
    s = gbrain("sync", str(v), "--json")
    assert s.returncode == 3, s.stderr
    assert json.loads(s.stdout)["purged_removed"] == []
    assert f.exists()
    with Brain.open(db_path) as b:
        assert bodies_holding(b, b"edited after the purge") != []


@pytest.mark.engine_free
def test_every_folder_of_a_team_brain_removes_the_purged_file_without_a_copy(pg_url, tmp_path):
    """A Postgres brain two folders (two people) sync: the page deleted by one, purged, then each
    folder syncs. The purged hashes are in the brain, so neither folder's sync keeps the bytes."""
    from gbrain.core.purge import purge
    from gbrain.sync.engine import SyncEngine

    a, b = tmp_path / "alice", tmp_path / "bob"
    (a / "ops").mkdir(parents=True)
    (a / "ops" / "deploy.md").write_text(page(True))
    (a / "ops" / "other.md").write_text("# Other\n\nNothing secret.\n")
    b.mkdir()
    with Brain.open(pg_url) as br:
        ea, eb = SyncEngine(br, a), SyncEngine(br, b)
        try:
            ea.bind()
            assert ea.sync()["exit_code"] == 0
            eb.bind()
            assert eb.sync()["exit_code"] == 0
            assert (b / "ops" / "deploy.md").exists()
            run("delete", {"slug": "ops/deploy"}, brain=br)
            assert purge(br, text=SECRET, apply=True)["applied"]
            for e, root in ((eb, b), (ea, a)):
                rep = e.sync()
                assert rep["exit_code"] == 0, rep
                assert rep["purged_removed"] == ["ops/deploy.md"]
                assert not (root / "ops" / "deploy.md").exists()
                assert bodies_holding(br, SECRET.encode()) == []
            assert purge(br, text=SECRET)["versions"] == 0
        finally:
            ea.close()
            eb.close()



def test_purge_drops_the_cached_vectors_of_a_chunk_budget_the_brain_no_longer_uses(db_path):
    """Config embedding_chunk_tokens cuts pages at the brain's budget: vectors of a budget set
    before (retired into the cache when another was set) hold the text too, and the purge cut
    the versions only at the models' own budgets and the current one."""
    from gbrain.search.chunking import chunk_page

    filler = " ".join(f"Line {j} of the runbook says little of note." for j in range(30))
    text = f"# Deploy\n\n{filler} The key is {SECRET} here. {filler}\n"
    with Brain.open(db_path) as b:
        b.set_config("embedding_model", "fake-32")
        b.set_config("embedding_chunk_tokens", "100")
        b.put("ops/deploy", text)
        run("embed", {}, brain=b)
        holding = {r[0] for r in b.conn.execute("SELECT text_hash FROM page_embeddings WHERE instr(chunk_text, ?) > 0", (SECRET,))}
        assert holding and not holding & {c.hash for n in (220, 300, 500) for c in chunk_page("Deploy", text.split("\n", 2)[2], "", max_tokens=n)}
        b.set_config("embedding_chunk_tokens", "300")
        b.put("ops/deploy", text.replace(SECRET, "(gone)"))
        run("embed", {}, brain=b)
        assert holding <= {r[0] for r in b.conn.execute("SELECT text_hash FROM embedding_cache")}
    r = run("purge", {"text": SECRET, "apply": True})
    assert r["applied"]
    with Brain.open(db_path) as b:
        assert not holding & {r[0] for r in b.conn.execute("SELECT text_hash FROM embedding_cache")}


def _old_copy(tmp_path, text: str | None = None) -> Path:
    """A tree holding the purged page's file as it was (an older export, a teammate's copy):
    exactly a purged version's bytes, unless ``text``."""
    old = tmp_path / "old"
    (old / "ops").mkdir(parents=True)
    (old / "ops" / "deploy.md").write_text(page(True) if text is None else text)
    (old / "ops" / "notes.md").write_text("# Notes\n\nA note of the copy.\n")
    return old


def test_an_import_of_an_old_copy_does_not_bring_the_purged_text_back(tmp_path, db_path):
    """Found by the prunepurge helper's leftovers (2026-12-04): `gbrain import` of a tree without
    a sync base (an older export, a teammate's copy) holding the purged page's file imported it
    again, and the purged text was back. A file whose bytes are exactly a purged version's is
    left out, named in a warning and the report (exit 0: the purge asked for it); the rest of the
    tree is imported; `--include-purged` takes it when the user means it."""
    import json

    from conftest import gbrain_in_process as gbrain

    _deleted_then_purged(tmp_path)
    old = _old_copy(tmp_path)
    r = gbrain("import", str(old), "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["ok"] and rep["purged_skipped"] == ["ops/deploy.md"] and rep["purged_skipped_count"] == 1, rep
    err = r.stderr.decode()
    assert "ops/deploy.md: not imported" in err and "gbrain purge" in err and "--include-purged" in err
    assert SECRET not in err + r.stdout.decode()
    with Brain.open(db_path) as b:
        assert bodies_holding(b, SECRET.encode()) == []
        assert b.conn.execute("SELECT 1 FROM pages WHERE slug = 'ops/notes'").fetchone()
        assert not b.conn.execute("SELECT 1 FROM pages WHERE slug = 'ops/deploy'").fetchone()
    t = gbrain("import", str(old))
    assert t.returncode == 0 and "Not imported" in t.stdout.decode() and "ops/deploy.md" in t.stdout.decode()
    i = gbrain("import", str(old), "--include-purged", "--json")
    assert i.returncode == 0, i.stderr
    assert json.loads(i.stdout)["purged_skipped"] == []
    with Brain.open(db_path) as b:
        assert bodies_holding(b, SECRET.encode()) != []  # the user asked for it


def test_the_bound_folders_import_leaves_the_purged_file_out_too(tmp_path, db_path):
    """`gbrain import` of the folder the brain is bound to, before its sync removed the file of
    the purged page: import never removes a file, and brought the text back; it leaves it out."""
    import json

    from conftest import gbrain_in_process as gbrain

    v, f = _deleted_then_purged(tmp_path)
    r = gbrain("import", str(v), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["purged_skipped"] == ["ops/deploy.md"]
    with Brain.open(db_path) as b:
        assert bodies_holding(b, SECRET.encode()) == []
    s = gbrain("sync", str(v), "--json")  # then the sync removes it without a copy, as before
    assert s.returncode == 0, s.stderr
    assert json.loads(s.stdout)["purged_removed"] == ["ops/deploy.md"] and not f.exists()


def test_an_edited_copy_of_the_purged_file_is_imported_as_ever(tmp_path, db_path):
    """Only a purged version's exact bytes are left out: a file the user edited is theirs."""
    import json

    from conftest import gbrain_in_process as gbrain

    _deleted_then_purged(tmp_path)
    old = _old_copy(tmp_path, page(False) + "edited in the copy\n")
    r = gbrain("import", str(old), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["purged_skipped"] == []
    with Brain.open(db_path) as b:
        assert bodies_holding(b, b"edited in the copy") != []


def test_a_sync_of_a_folder_without_a_base_leaves_the_purged_file_alone(tmp_path, db_path):
    """`gbrain sync` of another folder (no sync base: every file is new to it) imported the
    purged page's file again. It leaves it alone on both sides, saying so, exit 0, every round;
    `--include-purged` takes it."""
    import json

    from conftest import gbrain_in_process as gbrain

    _deleted_then_purged(tmp_path)
    old = _old_copy(tmp_path)
    for _ in range(2):
        s = gbrain("sync", str(old), "--rebind", "--json")
        assert s.returncode == 0, s.stderr
        rep = json.loads(s.stdout)
        assert rep["ok"] and rep["purged_skipped"] == ["ops/deploy.md"] and rep["counts"]["unreadable"] == 0, rep
        assert (old / "ops" / "deploy.md").exists()
        with Brain.open(db_path) as b:
            assert bodies_holding(b, SECRET.encode()) == []
            assert b.conn.execute("SELECT 1 FROM pages WHERE slug = 'ops/notes'").fetchone()
    assert "not imported" in s.stderr.decode()
    t = gbrain("sync", str(old), "--include-purged", "--json")
    assert t.returncode == 0, t.stderr
    assert json.loads(t.stdout)["purged_skipped"] == []
    with Brain.open(db_path) as b:
        assert bodies_holding(b, SECRET.encode()) != []


def test_the_first_sync_into_an_emptied_brain_leaves_the_purged_file_out(tmp_path, db_path):
    """A brain whose only page was deleted and purged, then a folder's first sync (the bulk
    import path of an empty brain)."""
    import json

    from conftest import gbrain_in_process as gbrain

    v = tmp_path / "vault"
    (v / "ops").mkdir(parents=True)
    (v / "ops" / "deploy.md").write_text(page(True))
    assert gbrain("import", str(v)).returncode == 0
    assert gbrain("delete", "ops/deploy").returncode == 0
    assert gbrain("purge", "--text", SECRET, "--apply").returncode == 0
    old = _old_copy(tmp_path)
    (old / "ops" / "notes.md").unlink()
    s = gbrain("sync", str(old), "--rebind", "--json")
    assert s.returncode == 0, s.stderr
    assert json.loads(s.stdout)["purged_skipped"] == ["ops/deploy.md"]
    assert s.stderr.decode().count("ops/deploy.md: not imported") == 1
    with Brain.open(db_path) as b:
        assert bodies_holding(b, SECRET.encode()) == []


def test_purge_leaves_no_word_of_the_text_in_the_did_you_mean_vocabulary(db_path):
    """Typo tolerance's vocabulary (Postgres: the cache ``search_vocab``, made by a search that
    needs it; SQLite reads its index live) holds the words of the pages when it was made: a purge
    of a text a deleted page held must not leave the text's words there (the cache was kept until
    search_totals moved by 1%, or a day)."""
    word = "quixotrelbank"
    with Brain.open(db_path) as b:
        b.put("ops/vault", f"# Vault\n\nThe door code word is {word}, said twice: {word}.\n")
        b.put("ops/other", "# Other\n\nNothing to hide in this note about gardens.\n")
        run("search", {"query": "gardns"}, brain=b)  # a word no page holds: the vocabulary is read (Postgres: made)
        run("delete", {"slug": "ops/vault"}, brain=b)
        r = run("purge", {"text": word, "apply": True}, brain=b)
        assert r["applied"], r
    assert word.encode() not in stored_bytes(db_path)


def test_purge_leaves_no_word_of_a_canvas_card_in_the_search_index(db_path):
    """A canvas's cards are indexed (``canvas_fts`` on SQLite, ``canvas_cards.tsv`` on Postgres):
    a card's text taken out of the canvas and purged leaves no trace of its words there (FTS5
    keeps a deleted word in its segments until they merge: purge rebuilds canvas_fts too)."""
    import json

    word = "quixotrelbank"

    def board(text: str) -> bytes:
        return json.dumps({"nodes": [{"id": "n0", "type": "text", "text": text, "x": 0, "y": 0, "width": 200, "height": 80}]}).encode()

    with Brain.open(db_path) as b:
        b.save_file("boards/vault.canvas", board(f"The door code word is {word}"))
        assert [x["slug"] for x in run("search", {"query": word}, brain=b)] == ["boards/vault.canvas"]
        b.save_file("boards/vault.canvas", board("The door code word is (redacted)"))
        r = run("purge", {"text": word, "apply": True}, brain=b)
        assert r["applied"] and r["versions"] == 1, r
        assert run("search", {"query": word}, brain=b) == []
    assert word.encode() not in stored_bytes(db_path)


def test_purge_finds_a_secret_a_json_writer_escaped(db_path):
    """A canvas or `.raw` sidecar written by a JSON writer holds `ñ` as `\\u00f1` (Python's
    ensure_ascii; `\\u00F1` from others), an emoji as a surrogate pair, `/` as `\\/` (PHP): purge
    --text matched the UTF-8 bytes only, so such versions kept the secret and a live file holding it
    was not refused. Every character may be written as itself or as any JSON escape of it."""
    import json
    import re

    from gbrain.core.purge import purge

    secret = "contraseña/zq9xv-ñandú😀"
    lower = json.dumps(secret)[1:-1].replace("/", "\\/")  # \u00f1 … \ud83d\ude00, \/
    upper = re.sub(r"\\u([0-9a-f]{4})", lambda m: "\\u" + m.group(1).upper(), lower)
    mixed = "contrase\\u00f1a/zq9xv-ñand\\u00fa😀"
    assert "zq9xv" in lower and "ñ" not in lower and "\\u00F1" in upper

    def canvas(text: str) -> bytes:
        return ('{"nodes":[{"id":"a","type":"text","text":"key ' + text + '"}],"edges":[]}').encode()

    with Brain.open(db_path) as b:
        b.put("ops/deploy", "# Deploy\n\nNo secret here.\n")
        b.save_file("Boards/Keys.canvas", canvas(lower))
        b.save_file("Boards/Keys.canvas", canvas("(redacted)"))
        b.save_file("ops/.raw/deploy.json", ('{"sources": {"vault": {"key": "' + upper + '"}}}').encode())
        b.save_file("ops/.raw/deploy.json", b'{"sources": {"vault": {"key": "(redacted)"}}}')
        b.save_file("Boards/Live.canvas", canvas(mixed))
        r = purge(b, text=secret)
        assert r["live"] == ["Boards/Live.canvas"] and r["refused"], r
        b.delete_file("Boards/Live.canvas")
        r = purge(b, text=secret, apply=True)
        assert {(i["name"], i["version"]) for i in r["items"]} == {("Boards/Keys.canvas", 1), ("ops/.raw/deploy.json", 1),
                                                                    ("Boards/Live.canvas", 1), ("Boards/Live.canvas", 2)}, r["items"]
        assert bodies_holding(b, b"zq9xv") == []
        assert b.conn.execute("SELECT count(*) FROM files WHERE path = 'Boards/Keys.canvas'").fetchone()[0] == 1
    assert b"zq9xv" not in stored_bytes(db_path)


def _items(r) -> set[tuple[str, int]]:
    return {(i["name"], i["version"]) for i in r["items"]}


def test_a_purge_of_a_text_naming_a_renamed_page_keeps_that_pages_history(db_path):
    """A dry run's finding: `purge --text people/ana` matched names and the labels of history
    rows (`move from people/ana`), so it listed the renamed page's move row, its current version,
    and would drop the versions under its old name. A version goes for its bytes; a name or a
    label naming a live page (or one of its old names) is metadata, never purged."""
    with Brain.open(db_path) as b:
        b.put("people/ana", "---\ntitle: Ana\n---\nAna Lima, engineer.\n")
        b.move_page("people/ana", "people/ana-lima")
        b.put("team/lima", "---\ntitle: Lima\n---\nThe Lima team.\n")
        b.move_page("team/lima", "groups/lima")  # an old name that is no part of the new one
        b.put("notes/x", "Ana's page was people/ana and team/lima, once.\n")
        b.put("notes/x", "Ana's page moved.\n")
    r = run("purge", {"text": "people/ana"})
    # the live name people/ana-lima holds the text: refused as before (nothing of it is listed)
    assert r["live"] == ["people/ana-lima"] and _items(r) == {("notes/x", 1)}
    r = run("purge", {"text": "team/lima", "apply": True})
    assert r["applied"] and _items(r) == {("notes/x", 1)}
    with Brain.open(db_path) as b:
        rows = b.conn.execute("SELECT name, version, op, detail FROM history WHERE name IN ('team/lima', 'groups/lima') ORDER BY name, version").fetchall()
        assert [tuple(x) for x in rows] == [("groups/lima", 1, "move", "from team/lima"), ("team/lima", 1, "create", ""),
                                            ("team/lima", 2, "move", "to groups/lima")]
    assert len(run("history", {"slug": "groups/lima"})["versions"]) == 2



def test_a_purge_of_a_text_naming_a_page_that_had_the_name_twice_keeps_every_stretch(db_path):
    """Review of 0eb9e4b (a page moved a→b→a→b): the live page's old names were walked until a
    name came again, so its first stretch under team/lima (create, move away) was no live page's
    and `purge --text team/lima` dropped it for its name. Every stretch of every name is the page's."""
    with Brain.open(db_path) as b:
        b.put("team/lima", "---\ntitle: Lima\n---\nThe Lima team.\n")
        b.move_page("team/lima", "groups/lima")
        b.move_page("groups/lima", "team/lima")
        b.move_page("team/lima", "groups/lima")
        b.put("notes/x", "Their page was team/lima, once.\n")
        b.put("notes/x", "Their page moved.\n")
        before = b.conn.execute("SELECT name, version FROM history WHERE name IN ('team/lima', 'groups/lima') ORDER BY name, version").fetchall()
    r = run("purge", {"text": "team/lima", "apply": True})
    assert r["applied"] and _items(r) == {("notes/x", 1)}, r
    with Brain.open(db_path) as b:
        after = b.conn.execute("SELECT name, version FROM history WHERE name IN ('team/lima', 'groups/lima') ORDER BY name, version").fetchall()
        assert [tuple(x) for x in after] == [tuple(x) for x in before] and len(before) == 7, after
    # (each move once, as its move in: groups/lima's own move away between its stretches is not listed either)
    assert [v["op"] for v in run("history", {"slug": "groups/lima", "limit": 0})["versions"]] == ["move", "move", "move", "create"]


def test_a_purge_refused_for_a_live_page_s_name_says_it_is_the_name(db_path):
    """`purge --text ana-lima` while the page people/ana-lima exists (its text never holding
    'ana-lima') was refused saying its current version held the text, and to edit the text out:
    no edit could. It says the page's name holds it, and to rename the page first (`move`); a
    page whose text holds it is still told to edit it out."""
    from conftest import gbrain_in_process as gbrain

    with Brain.open(db_path) as b:
        b.put("people/ana-lima", "---\ntitle: Ana Lima\n---\nAna Lima, engineer.\n")
        b.put("notes/x", "Old page: people/ana-lima.\n")
        b.put("notes/x", "Moved on.\n")
        b.put("notes/y", "She was ana-lima here.\n")
    for args in ((), ("--apply",)):
        r = gbrain("purge", "--text", "ana-lima", *args)
        assert r.returncode == 2, r
        err = r.stderr.decode() + r.stdout.decode()
        assert "name of people/ana-lima" in err and "gbrain move people/ana-lima" in err, err
        assert "current version of notes/y" in err and "current version of people/ana-lima" not in err, err
    assert gbrain("put", "notes/y", input="She was here.\n").returncode == 0
    r = gbrain("purge", "--text", "ana-lima")
    err = r.stderr.decode()
    assert "name of people/ana-lima" in err and "current version" not in err and "edit it out" not in err, err
    assert "(people/ana-lima still holds the text" in r.stdout.decode(), r.stdout  # one page: "holds" (trial 53)
    assert gbrain("move", "people/ana-lima", "people/ana").returncode == 0
    r = gbrain("purge", "--text", "ana-lima", "--apply")
    assert r.returncode == 0, r.stderr


def test_a_purge_refused_for_a_page_whose_name_and_text_hold_it_says_both(db_path):
    """A page whose name and current text both hold the text was told only to rename itself; once
    renamed, the purge was refused again for its text. Both are said at once."""
    from conftest import gbrain_in_process as gbrain

    with Brain.open(db_path) as b:
        b.put("people/ana-lima", "Ana Lima, see also ana-lima.\n")
    err = gbrain("purge", "--text", "ana-lima").stderr.decode()
    assert "name of people/ana-lima" in err and "current version of people/ana-lima" in err, err


def test_purging_a_renamed_pages_old_name_takes_the_name_out_of_its_move_label(db_path):
    """Trial 53: `purge --text xyzzy` refused for the page people/hidden-xyzzy, saying to rename it
    first; once renamed, `purge people/hidden-xyzzy --apply` dropped the old name's versions but the
    new page's move row kept the label `from people/hidden-xyzzy`: `history people/hidden` showed it
    and the database file held it. The labels naming a name with no history left are neutral; the
    page's history, diff and lineage read them without following them."""
    from conftest import gbrain_in_process as gbrain

    with Brain.open(db_path) as b:
        b.put("people/hidden-xyzzy", "# Hidden\n\nnothing\n")
        b.put("people/hidden-xyzzy", "# Hidden\n\nnothing at all\n")
    r = gbrain("purge", "--text", "xyzzy")
    assert r.returncode == 2, r
    err = r.stderr.decode()
    assert "gbrain move people/hidden-xyzzy NEW-NAME" in err and "`gbrain purge people/hidden-xyzzy --apply` then drops its versions" in err, err
    assert gbrain("move", "people/hidden-xyzzy", "people/hidden").returncode == 0
    assert gbrain("purge", "--text", "xyzzy", "--apply").returncode == 0  # a name's versions stay for a text (by design)
    r = gbrain("purge", "people/hidden-xyzzy", "--apply")
    assert r.returncode == 0, r.stderr
    assert b"xyzzy" not in stored_bytes(db_path)
    hist = gbrain("history", "people/hidden")
    assert hist.returncode == 0 and b"xyzzy" not in hist.stdout and b"a purged name" in hist.stdout, hist
    with Brain.open(db_path) as b:
        assert h.lineage(b.conn, "page", "people/hidden") == [("people/hidden", None)]
        assert b.get_text("people/hidden") == "# Hidden\n\nnothing at all\n"
    d = gbrain("diff", "people/hidden")  # one version with text: against nothing, no crash
    assert d.returncode == 0 and d.stdout.startswith(b"--- /dev/null\n") and b"+nothing at all\n" in d.stdout, d
    assert gbrain("move", "people/hidden", "people/shown").returncode == 0  # renames on as ever
    assert len(run("history", {"slug": "people/shown"})["versions"]) == 2


def test_a_purged_name_s_label_is_rewritten_only_where_no_version_of_that_name_is_left(db_path):
    """A name whose later page lives on keeps its labels: `from a` of b's move names a's later
    page, not the purged one."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "first page\n")
        b.delete_page("notes/a")
        b.put("notes/a", "second page\n")
        b.move_page("notes/a", "notes/b")
    with Brain.open(db_path) as b:
        before = [tuple(x) for x in b.conn.execute("SELECT name, version, op, detail FROM history WHERE name = 'notes/b'")]
    assert ("notes/b", 1, "move", "from notes/a") in before
    with Brain.open(db_path) as b:
        b.put("notes/c", "third\n")
        b.move_page("notes/c", "notes/d")
        b.delete_page("notes/d")
    r = run("purge", {"slug": "notes/d", "apply": True})
    assert r["applied"]
    with Brain.open(db_path) as b:
        after = [tuple(x) for x in b.conn.execute("SELECT name, version, op, detail FROM history WHERE name = 'notes/b'")]
        assert after == before
        assert h.lineage(b.conn, "page", "notes/b")[1][0] == "notes/a"


def test_a_text_purge_of_a_deleted_pages_old_name_takes_it_out_of_the_label_too(db_path):
    """A deleted page once named with the text: `purge --text` drops the old name's versions (its
    name held it) and the later name's move label no longer names it."""
    with Brain.open(db_path) as b:
        b.put("people/x-qwzv", "plain\n")
        b.move_page("people/x-qwzv", "people/x")
        b.delete_page("people/x")
    r = run("purge", {"text": "qwzv", "apply": True})
    assert r["applied"] and {i["name"] for i in r["items"]} == {"people/x-qwzv"}, r
    assert b"qwzv" not in stored_bytes(db_path)
    with Brain.open(db_path) as b:
        assert [x[0] for x in b.conn.execute("SELECT detail FROM history WHERE name = 'people/x' ORDER BY version")] == [
            "renamed from a purged name", ""]


def test_purge_slug_takes_the_page_that_last_had_the_name_not_another_page_s_versions_there(db_path):
    """`purge SLUG` takes the page's whole history under every name it had (docs/history.md). Page X
    lived at notes/a and moved to notes/x (it lives on); page Y then moved notes/b → notes/a and was
    deleted. `purge notes/a` listed every version of the name, X's too: `--apply` took the past of
    a live page the user never named (`history notes/a` lists them apart: another page's, before
    this one moved in). So it did at a name a deleted page only passed through (P moved notes/p →
    notes/q; Z moved notes/r → notes/p → notes/z and was deleted): an old name's versions had no
    lower bound. Y's versions go; X's stay, and notes/a's next purge (X then the page that last
    had it) takes them."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "X one\n")
        b.put("notes/a", "X two\n")
        b.move_page("notes/a", "notes/x")
        b.put("notes/b", "Y one\n")
        b.put("notes/b", "Y two\n")
        b.move_page("notes/b", "notes/a")
        b.put("notes/a", "Y three\n")
        b.delete_page("notes/a")
        xs = [tuple(r) for r in b.conn.execute("SELECT name, version FROM history WHERE name = 'notes/a' AND version <= 3 ORDER BY version")]
        assert len(xs) == 3  # X's create, edit, move away
    ys = {("notes/b", 1), ("notes/b", 2), ("notes/b", 3), ("notes/a", 4), ("notes/a", 5), ("notes/a", 6)}
    assert _items(run("purge", {"slug": "notes/a"})) == ys
    assert _items(run("purge", {"slug": "notes/b"})) == ys  # (its first name: the same page)
    r = run("purge", {"slug": "notes/a", "apply": True})
    assert r["applied"] and _items(r) == ys, r
    with Brain.open(db_path) as b:
        assert [tuple(r) for r in b.conn.execute("SELECT name, version FROM history WHERE name = 'notes/a' ORDER BY version")] == xs
        assert b.conn.execute("SELECT COUNT(*) FROM history WHERE name = 'notes/b'").fetchone()[0] == 0
        assert bodies_holding(b, b"Y t") == [] and b.get_text("notes/x") == "X two\n"
    hist = run("history", {"slug": "notes/x", "limit": 0})["versions"]
    assert [(v.get("name"), v["version"]) for v in hist] == [(None, 1), ("notes/a", 2), ("notes/a", 1)], hist
    assert _items(run("purge", {"slug": "notes/a"})) == set(xs)  # X's, now the page that last had notes/a
    with Brain.open(db_path) as b:  # a name a deleted page only passed through: P lives at notes/q
        b.put("notes/p", "P one\n")
        b.move_page("notes/p", "notes/q")
        b.put("notes/r", "Z one\n")
        b.move_page("notes/r", "notes/p")
        b.move_page("notes/p", "notes/z")
        b.delete_page("notes/z")
    zs = {("notes/r", 1), ("notes/r", 2), ("notes/p", 3), ("notes/p", 4), ("notes/z", 1), ("notes/z", 2)}
    for name in ("notes/z", "notes/p", "notes/r"):
        assert _items(run("purge", {"slug": name})) == zs, name


def test_purge_slug_of_a_page_that_had_a_name_twice_takes_every_stretch_and_no_other_page_s(db_path):
    """A page moved a→b→a→b and deleted, at names where another page lived before (W at notes/a,
    moved to notes/w; V at notes/b, moved to notes/v): `purge notes/b` takes both stretches of each
    name (`page_spans`, `lineage(every=True)`), never W's or V's versions."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "W\n")
        b.move_page("notes/a", "notes/w")
        b.put("notes/b", "V\n")
        b.move_page("notes/b", "notes/v")
        b.put("notes/a", "one\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/b", "two\n")
        b.move_page("notes/b", "notes/a")
        b.move_page("notes/a", "notes/b")
        b.delete_page("notes/b")
        others = {tuple(r) for r in b.conn.execute("SELECT name, version FROM history WHERE name IN ('notes/a', 'notes/b') AND version <= 2")}
        mine = {tuple(r) for r in b.conn.execute("SELECT name, version FROM history WHERE name IN ('notes/a', 'notes/b')")} - others
    assert len(others) == 4 and len(mine) == 9, (others, mine)
    for name in ("notes/b", "notes/a"):
        items = run("purge", {"slug": name})["items"]
        assert _items({"items": items}) == mine, name
        for n in ("notes/a", "notes/b"):  # oldest first per name, each name once (the dry run's `notes/b v1, v2, v3, v4`)
            got = [i["version"] for i in items if i["name"] == n]
            assert got == sorted(got), (n, got)
        assert [i["name"] for i in items] == sorted([i["name"] for i in items], key=[i["name"] for i in items].index)


def test_purge_slug_leaves_another_page_deleted_at_a_name_between_two_stretches_of_this_one(db_path):
    """Review of e03e6356: X moved notes/a → notes/b; Y was written at notes/a and deleted there;
    X moved back to notes/a and was deleted. `purge notes/a` took Y's versions with X's (docs: a
    page's that was deleted there before this one moved in stay). X's only."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "X one\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/a", "Y one\n")
        b.delete_page("notes/a")
        b.move_page("notes/b", "notes/a")
        b.delete_page("notes/a")
    xs = {("notes/a", 1), ("notes/a", 2), ("notes/b", 1), ("notes/b", 2), ("notes/a", 5), ("notes/a", 6)}
    assert _items(run("purge", {"slug": "notes/a"})) == xs


def test_purge_slug_of_a_renamed_page_deleted_and_restored_takes_its_old_names_too(db_path):
    """Review of e03e6356: a page moved notes/a → notes/b, deleted, restored, deleted again.
    `purge notes/b` took notes/b's versions only: notes/a's, the page's text too, stayed (the walk
    back through its names stopped at the first deletion)."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "secret one\n")
        b.move_page("notes/a", "notes/b")
        b.delete_page("notes/b")
    run("restore", {"slug": "notes/b"})
    with Brain.open(db_path) as b:
        b.delete_page("notes/b")
    r = run("purge", {"slug": "notes/b", "apply": True})
    assert _items(r) == {("notes/a", 1), ("notes/a", 2), ("notes/b", 1), ("notes/b", 2), ("notes/b", 3), ("notes/b", 4)}, r
    with Brain.open(db_path) as b:
        assert bodies_holding(b, b"secret") == []


def test_a_text_purge_of_a_deleted_page_at_a_name_written_again_leaves_no_empty_deletion(db_path):
    """X written at notes/a with the secret and deleted; a new page Y written at notes/a (then
    deleted, or live). `purge --text` took X's version and left its deletion: `history notes/a`
    listed a deletion of nothing (notes/a v2), and a page of nothing moved away alike. A deletion or
    move away none of whose page's versions there is left goes with them, as a deleted page none of
    whose versions is left goes whole."""
    with Brain.open(db_path) as b:
        b.put("notes/a", f"X {SECRET}\n")
        b.delete_page("notes/a")
        b.put("notes/a", "Y clean\n")
        b.put("notes/m", f"M {SECRET}\n")
        b.move_page("notes/m", "notes/n")
        b.put("notes/n", "M clean\n")  # (notes/n lives: its move in holds the text, its edit not)
        b.put("notes/m", "W clean\n")  # another page at the name M left
    assert _items(run("purge", {"text": SECRET})) == {("notes/a", 1), ("notes/a", 2), ("notes/m", 1), ("notes/m", 2), ("notes/n", 1)}
    r = run("purge", {"text": SECRET, "apply": True})
    assert not r.get("refused"), r
    with Brain.open(db_path) as b:
        assert [(v["version"], v["op"]) for v in h.versions(b, "notes/a", limit=0)["versions"]] == [(3, "create")]
        assert [(v["version"], v["op"]) for v in h.versions(b, "notes/m", limit=0)["versions"]] == [(3, "create")]
        b.delete_page("notes/a")
        assert [t["version"] for t in h.trash_list(b) if t["slug"] == "notes/a"] == [3]


def test_purge_slug_refuses_while_the_pages_conflict_copy_is_current_then_takes_its_versions(tmp_path, db_path):
    """`purge notes/plan` of a deleted page whose conflict copy (the brain's version, kept beside the
    note by sync) is still a page of the brain dropped the page's versions and its conflict record and
    left the copy, the page's text, current and in the history. A purge never touches a current page:
    it is refused, naming the copy (delete it first); the copy deleted, the purge takes its versions
    with the page's."""
    from conftest import gbrain_in_process as gbrain

    v = tmp_path / "vault"
    (v / "notes").mkdir(parents=True)
    f = v / "notes" / "plan.md"
    f.write_text("# Plan\n\nfirst\n")
    assert gbrain("import", str(v)).returncode == 0
    f.write_text("# Plan\n\nedited in the folder\n")
    with Brain.open(db_path) as b:
        b.put("notes/plan", "# Plan\n\nedited in the brain secretly\n")
    assert gbrain("sync", str(v)).returncode == 3  # a conflict: the brain's version kept as a copy
    with Brain.open(db_path) as b:
        (copy,) = [r[0] for r in b.conn.execute("SELECT copy_path FROM sync_conflicts WHERE path = 'notes/plan.md'")]
        (slug,) = [r[0] for r in b.conn.execute("SELECT slug FROM pages WHERE path = ?", (copy,))]
        b.delete_page("notes/plan")
        b.put("notes/other", "# Other\n\nedited in the brain secretly too, another page\n")
    dry = run("purge", {"slug": "notes/plan"})
    assert dry["refused"] and dry["exit_code"] == 2 and slug in dry["refusal"] and f"gbrain delete {slug}" in dry["refusal"], dry
    r = gbrain("purge", "notes/plan", "--apply")
    assert r.returncode == 2 and slug.encode() in r.stderr, r
    with Brain.open(db_path) as b:
        assert b.get_text(slug) is not None and h.versions(b, "notes/plan")["total"] > 0  # nothing purged
        b.delete_page(slug)
    r = run("purge", {"slug": "notes/plan", "apply": True})
    assert not r["refused"] and {i["name"] for i in r["items"]} == {"notes/plan", slug}, r
    with Brain.open(db_path) as b:
        assert [bid for bid in bodies_holding(b, b"edited in the brain secretly") if b"another page" not in h.body(b.conn, bid)] == []
        assert b.conn.execute("SELECT COUNT(*) FROM history WHERE name = ?", (slug,)).fetchone()[0] == 0
        assert b.get_text("notes/other") is not None


def test_a_text_purge_taking_a_renamed_pages_move_in_keeps_the_page_one_history(db_path, monkeypatch):
    """notes/a (v1 "keep", v2 "keep" + the secret) moved to notes/b, the secret edited out there.
    `purge --text` takes notes/a v2 and notes/b v1, the move in (it holds the text notes/a v2 had):
    notes/b's history began at its edit, no move in, and the page was cut from its past: `history
    notes/b` no longer listed notes/a v1 (its +N -M counted against nothing), `revert notes/a --to 1`
    had no page to follow, and `purge notes/b` of the deleted page left notes/a v1, its text. The
    first version left at notes/b becomes the move in (``move from notes/a``): one history."""
    from gbrain.core import purge as purgemod

    monkeypatch.setattr(purgemod, "compact", lambda c: True)
    with Brain.open(db_path) as b:
        b.put("notes/a", "# a\n\nkeep\n")
        b.put("notes/a", "# a\n\nkeep\nsecret\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/b", "# a\n\nkeep\nother\n")
        purgemod.purge(b, text="secret", apply=True)
        vs = h.versions(b, "notes/b", limit=0)["versions"]
        assert [(v.get("name"), v["version"], v["op"], v["added"], v["removed"]) for v in vs] == [
            (None, 2, "move", 1, 0), ("notes/a", 1, "create", 3, 0)], vs
        assert vs[0]["detail"] == "from notes/a"
        d = h.diff(b, "notes/b")  # the newest against the page's text before it, notes/a v1
        assert (d["from_name"], d["from"], d["added"], d["removed"]) == ("notes/a", 1, 1, 0), d
        r = run("revert", {"slug": "notes/a", "to": 1}, brain=b)
        assert r["slug"] == "notes/b" and b.get_text("notes/b") == "# a\n\nkeep\n", r
        assert not b.conn.execute("SELECT 1 FROM pages WHERE slug = 'notes/a'").fetchone()
        b.delete_page("notes/b")
        _, items = purgemod.plan(b, key=("page", "notes/b"))
        assert {(x["name"], x["version"]) for x in items} == {("notes/a", 1), ("notes/a", 3), ("notes/b", 2), ("notes/b", 3), ("notes/b", 4)}, items


def test_a_text_purge_taking_a_restore_keeps_the_page_one_history(db_path, monkeypatch):
    """notes/a moved to notes/b, the secret added there, deleted, restored (a create labelled `to v2`)
    and the secret edited out. `purge --text` takes notes/b v2 and v4, the restore: the page's history
    began again at the edit, notes/b v1 and notes/a v1 listed nowhere (the edit counted against
    nothing, `+4 -0`), and `purge notes/b` of the deleted page left notes/a's versions. The first
    version left after the deletion takes the restore's label: one history."""
    from gbrain.core import purge as purgemod

    monkeypatch.setattr(purgemod, "compact", lambda c: True)
    with Brain.open(db_path) as b:
        b.put("notes/a", "# a\n\nkeep\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/b", "# a\n\nkeep\nsecret\n")
        b.delete_page("notes/b")
        run("restore", {"slug": "notes/b"}, brain=b)
        b.put("notes/b", "# a\n\nkeep\nother\n")
        purgemod.purge(b, text="secret", apply=True)
        vs = h.versions(b, "notes/b", limit=0)["versions"]
        assert [(v.get("name"), v["version"], v["op"], v["added"], v["removed"]) for v in vs] == [
            (None, 5, "create", 1, 0), (None, 3, "delete", 0, 0), (None, 1, "move", 0, 0), ("notes/a", 1, "create", 3, 0)], vs
        b.delete_page("notes/b")
        _, items = purgemod.plan(b, key=("page", "notes/b"))
        assert {(x["name"], x["version"]) for x in items} == {("notes/a", 1), ("notes/a", 2), ("notes/b", 1), ("notes/b", 3), ("notes/b", 5), ("notes/b", 6)}, items


@pytest.mark.parametrize("hops", [1, 2])
def test_a_text_purge_of_every_later_name_of_a_deleted_page_leaves_it_in_the_trash_at_its_old_name(db_path, monkeypatch, hops):
    """notes/a (v1, then v2 with the secret) moved to notes/b (and on to notes/c), deleted there.
    `purge --text` took every version after notes/a v1 (the move ins hold the secret): notes/a's
    move away was left as `renamed to a purged name`, the page neither live nor in the trash, and
    `revert notes/a --to 1` wrote a page begun again (a create counted against nothing, `+3 -0`).
    What a user expects: notes/a's versions are that page's past, the page deleted. The move away
    becomes its deletion (`history._ended_aways`, as a prune's), the trash lists it at notes/a
    (`moved to a purged name, then deleted there`), and `restore`/`revert` bring the same page back."""
    from gbrain.core import purge as purgemod

    monkeypatch.setattr(purgemod, "compact", lambda c: True)
    with Brain.open(db_path) as b:
        b.put("notes/a", "# a\n\nkeep\n")
        b.put("notes/a", "# a\n\nkeep\nsecret\n")
        b.move_page("notes/a", "notes/b")
        last = "notes/b"
        if hops == 2:
            b.move_page("notes/b", "notes/c")
            last = "notes/c"
        b.delete_page(last)
        purgemod.purge(b, text="secret", apply=True)
        assert not b.conn.execute("SELECT 1 FROM history WHERE name IN ('notes/b', 'notes/c')").fetchone()
        t = h.trash_list(b, limit=0)
        assert [(x["slug"], x["reason"]) for x in t] == [("notes/a", "moved to a purged name, then deleted there (api)")], t
        r = run("revert", {"slug": "notes/a", "to": 1}, brain=b)
        assert r["slug"] == "notes/a" and b.get_text("notes/a") == "# a\n\nkeep\n", r
        vs = h.versions(b, "notes/a", limit=0)["versions"]
        assert [(v["version"], v["op"], v.get("detail", ""), v["added"], v["removed"]) for v in vs] == [
            (4, "create", "to v1", 0, 0), (3, "delete", "moved to a purged name", 0, 0), (1, "create", "", 3, 0)], vs


@pytest.mark.parametrize("taken", ["b", "bc"])
def test_a_text_purge_ending_a_page_moved_on_says_the_name_it_was_deleted_at(db_path, monkeypatch, taken):
    """notes/a (the secret in v2) moved to notes/b, on to notes/c, deleted there; other pages
    written since at notes/b (and notes/c). `purge --text` takes the page's every version after
    notes/a v1, so its move away from notes/a becomes its deletion (`history._ended_aways`,
    through `_stretch_gone`). The label named the first name it moved to, notes/b, where another
    page's versions are left: the trash said `moved to notes/b, then deleted there`, a name it was
    never deleted at (and the page there someone else's). It names the name the page was deleted
    at: notes/c, or `a purged name` when notes/c holds nothing any more."""
    from gbrain.core import purge as purgemod

    monkeypatch.setattr(purgemod, "compact", lambda c: True)
    with Brain.open(db_path) as b:
        b.put("notes/a", "# a\n\nkeep\n")
        b.put("notes/a", "# a\n\nkeep\nsecret\n")
        b.move_page("notes/a", "notes/b")
        b.move_page("notes/b", "notes/c")
        b.delete_page("notes/c")
        for n in taken:
            b.put(f"notes/{n}", f"# {n}\n\nanother page\n")
        purgemod.purge(b, text="secret", apply=True)
        t = [(x["slug"], x["reason"]) for x in h.trash_list(b, limit=0)]
        where = "notes/c" if taken == "bc" else "a purged name"
        assert t == [("notes/a", f"moved to {where}, then deleted there (api)")], t
        r = run("revert", {"slug": "notes/a", "to": 1}, brain=b)
        assert r["slug"] == "notes/a" and b.get_text("notes/a") == "# a\n\nkeep\n", r


def test_a_text_purge_ending_a_page_moved_back_to_its_name_never_says_it_moved_to_it(db_path, monkeypatch):
    """notes/a (the secret in v2) moved to notes/b and back, deleted at notes/a: a text purge takes
    every version after v1, and notes/a's first move away becomes the page's deletion. The trash
    says `moved to a purged name and back` (notes/b, then notes/a), never `notes/a: moved to
    notes/a` (the name it was deleted at, its own: `history._ended_aways`); before 2026-12-06
    `moved to a purged name, then deleted there`, the page deleted at a name it had left."""
    from gbrain.core import purge as purgemod

    monkeypatch.setattr(purgemod, "compact", lambda c: True)
    with Brain.open(db_path) as b:
        b.put("notes/a", "# a\n\nkeep\n")
        b.put("notes/a", "# a\n\nkeep\nsecret\n")
        b.move_page("notes/a", "notes/b")
        b.move_page("notes/b", "notes/a")
        b.delete_page("notes/a")
        purgemod.purge(b, text="secret", apply=True)
        t = [(x["slug"], x["reason"]) for x in h.trash_list(b, limit=0)]
        assert t == [("notes/a", "moved to a purged name and back, then deleted there (api)")], t
        r = run("restore", {"slug": "notes/a"}, brain=b)
        assert b.get_text("notes/a") == "# a\n\nkeep\n", r


def test_a_text_purge_of_a_round_trip_a_b_a_leaves_no_move_from_a_name_to_itself(db_path, monkeypatch):
    """notes/a (the secret in v2) moved to notes/b and back, edited at notes/a (the secret out),
    deleted: a text purge takes v2, the whole stretch at notes/b and the move in back at notes/a.
    The first version left after that move in took its place, `from` the page's last name with a
    version left before it, which was notes/a itself: history read `move to notes/a` (the move
    away, relabelled) and `move from notes/a` (the edit), a move from a name onto the same name.
    The round trip left nothing of it: the move away goes, the edit stays an edit, counted against
    v1; the trash says a plain deletion, and restore brings the edit back."""
    from gbrain.core import purge as purgemod

    monkeypatch.setattr(purgemod, "compact", lambda c: True)
    with Brain.open(db_path) as b:
        b.put("notes/a", "# a\n\nkeep\n")
        b.put("notes/a", "# a\n\nkeep\nsecret\n")
        b.move_page("notes/a", "notes/b")
        b.move_page("notes/b", "notes/a")
        b.put("notes/a", "# a\n\nkeep\nedited\n")
        b.delete_page("notes/a")
        purgemod.purge(b, text="secret", apply=True)
        rows = [(r["name"], r["op"], r["detail"] or "") for r in b.conn.execute("SELECT name, op, detail FROM history WHERE kind = 'page' ORDER BY id")]
        assert rows == [("notes/a", "create", ""), ("notes/a", "update", ""), ("notes/a", "delete", "")], rows
        vs = [(v["op"], v.get("detail") or "", v.get("added"), v.get("removed")) for v in h.versions(b, "notes/a", limit=0)["versions"]]
        assert vs == [("delete", "", 0, 0), ("update", "", 1, 0), ("create", "", 3, 0)], vs
        t = [(x["slug"], x["reason"]) for x in h.trash_list(b, limit=0)]
        assert t == [("notes/a", "deleted (api)")], t
        run("restore", {"slug": "notes/a"}, brain=b)
        assert b.get_text("notes/a") == "# a\n\nkeep\nedited\n"


def test_a_text_purge_of_a_round_trip_keeps_the_move_away_when_another_page_lived_at_the_name(db_path, monkeypatch):
    """notes/a (the secret in v2) moved to notes/b; another page written at notes/a and deleted;
    the first page moved back and edited. A text purge takes v2, the stretch at notes/b and the
    move in back. The round-trip rule (`rejoin_labels`: a → b → a gone whole, its move away goes)
    deleted the move away though the page did leave: history read the first page's v1, the other
    page's create and deletion as its versions, then an `update` after a deletion. The move away
    stays when another page's rows lie between it and the move in back, and the version left
    takes the move in's label (both about a purged name)."""
    from gbrain.core import purge as purgemod

    monkeypatch.setattr(purgemod, "compact", lambda c: True)
    with Brain.open(db_path) as b:
        b.put("notes/a", "# a\n\nkeep\n")
        b.put("notes/a", "# a\n\nkeep\nsecret\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/a", "# R\n\nother page\n")
        b.delete_page("notes/a")
        b.move_page("notes/b", "notes/a")
        b.put("notes/a", "# a\n\nkeep\nedited\n")
        purgemod.purge(b, text="secret", apply=True)
        rows = [(r["op"], r["detail"] or "") for r in b.conn.execute("SELECT op, detail FROM history WHERE kind = 'page' ORDER BY id")]
        assert rows == [("create", ""), ("move", "renamed to a purged name"), ("create", ""), ("delete", ""),
                        ("move", "renamed from a purged name")], rows
        assert b.get_text("notes/a") == "# a\n\nkeep\nedited\n"


def test_asking_for_a_purged_version_says_it_was_purged_or_pruned(db_path):
    """`get --version 1` after `purge --text` took version 1 said "older ones were pruned", though
    the user purged it: the answer names both ways a version goes (prune, purge), and the log the
    purge left (config purge_log), so the user is not sent looking for a prune nobody ran."""
    from gbrain.errors import NotFound

    with Brain.open(db_path) as b:
        b.put("ops/deploy", page(True))
        b.put("ops/deploy", page(False))
        b.put("ops/deploy", page(False) + "A line added later.\n")
        b.put("ops/deploy", page(False))
        assert run("purge", {"text": SECRET, "apply": True}, brain=b)["applied"]
        with pytest.raises(NotFound) as e:
            run("get", {"slug": "ops/deploy", "version": 1}, brain=b)
        assert "purged" in str(e.value) and "pruned" in str(e.value) and "purge_log" in str(e.value), str(e.value)


def test_asking_for_a_version_past_the_newest_after_a_purge_names_the_versions_left(db_path):
    """After `purge --text` took version 1 of three, `get --version 7` said "versions: 1 to 3;
    pruned or purged (config purge_log records each purge) ones are gone": version 1 is gone, and
    7 was never written, no prune nor purge took it. The answer names the versions left (2 to 3)
    and the newest; a version a purge took names `gbrain config get purge_log`, a command that runs."""
    from gbrain.errors import NotFound

    with Brain.open(db_path) as b:
        b.put("ops/deploy", page(True))
        b.put("ops/deploy", page(False))
        b.put("ops/deploy", page(False) + "A line added later.\n")
        assert run("purge", {"text": SECRET, "apply": True}, brain=b)["applied"]
        with pytest.raises(NotFound) as e:
            run("get", {"slug": "ops/deploy", "version": 7}, brain=b)
        msg = str(e.value)
        assert "versions: 2 to 3" in msg and "newest" in msg and "pruned" not in msg and "purged" not in msg, msg
        with pytest.raises(NotFound) as e:
            run("get", {"slug": "ops/deploy", "version": 1}, brain=b)
        assert "`gbrain config get purge_log`" in str(e.value), str(e.value)
        assert run("config-get", {"key": "purge_log"}, brain=b), "the command the answer names runs"
