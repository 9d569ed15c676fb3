"""`storage.db.in_parts`: the one helper every `IN (…)` list of many values is cut by (about
twenty loops spelled it by hand, 500 per statement): bounded statements, every value once, in
order, with the placeholders of its slice."""
from __future__ import annotations

import sqlite3

import pytest

from gbrain.storage.db import IN_MAX, in_parts

pytestmark = pytest.mark.engine_free


@pytest.mark.parametrize("count", [0, 1, IN_MAX - 1, IN_MAX, IN_MAX + 1, 2 * IN_MAX + 7])
def test_every_value_once_in_slices_of_at_most_in_max_with_their_placeholders(count):
    values = list(range(count))
    parts = list(in_parts(values))
    assert [x for part, _ in parts for x in part] == values
    assert all(0 < len(part) <= IN_MAX and marks == ", ".join("?" * len(part)) for part, marks in parts)
    assert len(parts) == -(-count // IN_MAX)
    assert [len(p) for p, _ in in_parts(values, 300)] == [min(300, count - i) for i in range(0, count, 300)]


def test_a_query_over_every_slice_finds_every_row():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
    conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(1, 1301)])
    ids = list(range(0, 1400, 2))
    found = [r[0] for part, marks in in_parts(ids) for r in conn.execute(f"SELECT id FROM t WHERE id IN ({marks}) ORDER BY id", part)]
    assert found == [i for i in ids if 1 <= i <= 1300]
