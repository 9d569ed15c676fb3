"""The column fills released migrations run (``rederive_search_words``, ``rederive_cjk``,
``rederive_search_text``, ``fill_fold_names``: SQLite v14/v21/v39/v63, Postgres v12/v21/v40/v67)
write their rows 500 per statement: every row that differs is written whatever the batch it
falls in (a brain past 1,000 pages: three batches, the last a part), the count returned is the
rows written, and the rows already right are left alone."""
from __future__ import annotations

import pytest

from conftest import write_tree

from gbrain.core.brain import Brain
from gbrain.storage import db as dbmod
from gbrain.sync.importer import import_tree

N = 1201  # batches of 500, 500 and 201
#: (the fill, its columns, the value a brain from before it holds there)
FILLS = [
    (dbmod.rederive_search_words, ("search_words",), ""),
    (dbmod.rederive_cjk, ("search_cjk",), ""),
    (dbmod.rederive_search_text, ("search_body", "search_timeline"), None),
    (dbmod.fill_fold_names, ("search_fold_names",), ""),
]


@pytest.fixture(scope="module")
def notes():
    """N pages each column fill writes (a folded name, CJK, a link address) and a few plain ones
    (ASCII, no link: the fills that select by text skip them)."""
    files = {f"people/łukasz-{k}.md": f"# Łukasz Nowak {k}\n\n東京 note {k}, see [site](https://example.org/{k}).\n"
             for k in range(N)}
    files.update({f"plain/p{k}.md": f"# Plain {k}\n\nplain text {k}\n" for k in range(7)})
    return files


@pytest.mark.parametrize("fill,cols,before", FILLS, ids=[f.__name__ for f, _, _ in FILLS])
def test_a_column_fill_writes_every_row_that_differs_across_its_batches(tmp_path, db_path, notes, fill, cols, before):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        sel = f"SELECT id, {', '.join(cols)} FROM pages ORDER BY id"
        fresh = b.conn.execute(sel).fetchall()
        assert len(fresh) == N + 7
        blank = [r[0] for r in fresh if any(x != before for x in tuple(r)[1:])]  # the rows the fill writes
        assert len(blank) >= N
        with b.transaction():
            b.conn.execute(f"UPDATE pages SET {', '.join(f'{c} = ?' for c in cols)}", (before,) * len(cols))
        with b.transaction():
            n = fill(b.conn)
        assert n == len(blank)
        assert [tuple(r) for r in b.conn.execute(sel)] == [tuple(r) for r in fresh]
        with b.transaction():
            assert fill(b.conn) == 0  # all right now: nothing written
