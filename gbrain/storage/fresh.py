"""The schema snapshot a new SQLite brain is made from (``storage/sql/sqlite_fresh.sql``,
:data:`db.FRESH_SQL`): what the whole migration chain leaves in an empty brain, so a new brain
runs one file's statements in one transaction instead of every migration (:func:`db.migrate`).

Rebuild it after adding or changing a migration::

    python -m gbrain.storage.fresh

It holds the ``sqlite_master`` statements of the brain the chain made (tables and FTS5 virtual
tables, never their shadow tables, which the virtual table makes; then views, indexes,
triggers), an FTS5 'rebuild' where the chain built an index (its shadow rows then match), the
rows the migrations insert (``config`` defaults, ``sqlite_sequence``), and
``PRAGMA user_version``. What differs per brain (v52's random id in ``application_id``) is
left to :data:`db.FRESH_PER_BRAIN`. ``tests/test_fresh_schema.py`` compares a brain made from
it with one made by the chain.
"""
from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path

from . import db

#: the command that writes :data:`db.FRESH_SQL` again (named by the test's failure)
REGENERATE = "python -m gbrain.storage.fresh"
#: SQLite's defaults, which the snapshot assumes (a WAL brain's page size cannot change later)
DEFAULT_PRAGMAS = {"page_size": 4096, "auto_vacuum": 0, "encoding": "UTF-8"}


def chain_brain(path: Path) -> sqlite3.Connection:
    """A new brain at ``path`` (which must not exist) made by replaying every migration, as
    :func:`db.connect` made one before the snapshot (its pragmas and SQL functions: :func:`db.set_up`)."""
    path = Path(path)
    if path.exists():
        raise FileExistsError(path)
    db._create_private(path)
    conn = db.raw_connect(path, read_only=False)
    db.set_up(conn)
    db.migrate(conn, path, replay=True)
    return conn


def shadow_tables(conn) -> set[str]:
    """Names of the tables an FTS5 virtual table made and keeps (``PRAGMA table_list`` type
    'shadow')."""
    return {r[1] for r in conn.execute("PRAGMA table_list") if r[0] == "main" and r[2] == "shadow"}


def _literal(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return "X'" + v.hex() + "'"
    if isinstance(v, (int, float)):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def dump(conn) -> str:
    """The snapshot text of the brain on ``conn`` (a brain the chain just made, no pages).
    Raises ValueError for a state the snapshot cannot give (a page size or auto_vacuum other
    than SQLite's default: they must be set before the first table; a table of rows other than
    the migrations' own small ones)."""
    for k, want in DEFAULT_PRAGMAS.items():
        got = conn.execute(f"PRAGMA {k}").fetchone()[0]
        if got != want:
            raise ValueError(f"PRAGMA {k} is {got!r}, not SQLite's default {want!r}: teach gbrain/storage/fresh.py to set it first")
    shadow = shadow_tables(conn)
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").fetchall()
    order = {"table": 0, "view": 1, "index": 2, "trigger": 3}
    objs = [r for r in rows if r[1] not in shadow and not r[1].startswith("sqlite_")]
    objs.sort(key=lambda r: order[r[0]])  # (stable: each kind in the order the chain left it)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    out = [f"-- gbrain: a new SQLite brain's schema v{version}, what the whole migration chain leaves in an empty brain.",
           f"-- GENERATED: do not edit; after adding or changing a migration run `{REGENERATE}`.",
           "-- (gbrain/storage/fresh.py; tests/test_fresh_schema.py compares it with the chain)", ""]
    for _, _, _, sql in objs:
        out.append(sql.rstrip().rstrip(";") + ";")
    out.append("")
    virtual = {r[1] for r in conn.execute("PRAGMA table_list") if r[0] == "main" and r[2] == "virtual"}
    for t in sorted(virtual):  # an FTS5 index the chain built ('rebuild') has its averages record written
        if f"{t}_data" in shadow and conn.execute(f'SELECT length(block) FROM "{t}_data" WHERE id = 1').fetchone() not in (None, (0,)):
            out.append(f"INSERT INTO {t}({t}) VALUES ('rebuild');")
    tables = [r[1] for r in objs if r[0] == "table" and r[1] not in virtual] + ["sqlite_sequence"]
    for t in tables:
        if not db.has_table(conn, t):
            continue
        cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')]
        try:
            found = conn.execute(f'SELECT * FROM "{t}" ORDER BY rowid').fetchall()
        except sqlite3.OperationalError:  # (a WITHOUT ROWID table)
            found = conn.execute(f'SELECT * FROM "{t}" ORDER BY {", ".join(str(i + 1) for i in range(len(cols)))}').fetchall()
        for row in found:
            out.append(f'INSERT INTO "{t}" ({", ".join(cols)}) VALUES ({", ".join(_literal(v) for v in row)});')
    out.append("")
    out.append(f"PRAGMA user_version = {version};")
    return "\n".join(out) + "\n"


def generate(target: Path | None = None) -> str:
    """Make a brain by the chain in a temporary folder and write its snapshot to ``target``
    (default :data:`db.FRESH_SQL`); returns the text."""
    target = Path(target or db.FRESH_SQL)
    with tempfile.TemporaryDirectory() as d:
        conn = chain_brain(Path(d) / "chain.db")
        try:
            text = dump(conn)
        finally:
            conn.close()
    target.write_text(text, encoding="utf-8")
    db._fresh_file.cache_clear()
    return text


def main(argv: list[str] | None = None) -> int:
    """``python -m gbrain.storage.fresh [FILE]``: write the snapshot (to FILE, default the
    package's ``sql/sqlite_fresh.sql``)."""
    argv = sys.argv[1:] if argv is None else argv
    target = Path(argv[0]) if argv else db.FRESH_SQL
    text = generate(target)
    print(f"wrote {target} ({text.count(';' + chr(10))} statements, schema v{db.SCHEMA_VERSION})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
