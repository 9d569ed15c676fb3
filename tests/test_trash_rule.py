"""The trash's rule (CLAUDE.md invariant 8), ``history.DELETED_NOW``: a page or file is deleted when
the newest history row of its ``(kind, name)`` (by version) is the deletion. Every reader of it
(``trash_list``, ``in_trash``, ``restore``'s ``_find_deleted``, ``_not_in_trash``'s count) is
compared with that rule computed in Python over random histories written as rows: versions with
gaps (pruned or purged ones), one name of both kinds, names differing in case or Unicode form,
ids not in version order, moves away and in, restores, trashed versions. Both engines.
``GBRAIN_HISTORY_EXAMPLES`` sets the histories (default 30 on SQLite, 8 on Postgres)."""
from __future__ import annotations

import os
import random
import unicodedata

from gbrain.core import history as h
from gbrain.core.brain import Brain

NAMES = ["a", "A", "f/a", "f/b", "f/sub/c", "F/a", "g/a", "a.md", "x (swapping names)", "f/\u00e9", "f/e\u0301"]


def _history(c, rng: random.Random) -> dict[tuple[str, str], list[tuple]]:
    """Replace the brain's history with a random one; ``{(kind, name): [(version, op, body_id)]}``."""
    seqs: dict[tuple[str, str], list[tuple]] = {}
    for kind in ("page", "file"):
        for n in NAMES:
            if rng.random() < 0.35:
                continue
            v, seq = 0, []
            for _ in range(rng.randint(1, 6)):
                v += 1 if rng.random() < 0.7 else rng.randint(2, 4)
                op = rng.choice(["create", "update", "move", "move", "delete", "delete", "baseline"])
                away = op == "move" and rng.random() < 0.6
                seq.append((v, op, None if op == "delete" or away else rng.randint(1, 5), ("to z" if away else "from y") if op == "move" else ""))
            seqs[(kind, n)] = seq
    queues = {k: list(s) for k, s in seqs.items()}
    c.execute("DELETE FROM history")
    i = 0
    while queues:
        k = rng.choice(sorted(queues))
        v, op, body, detail = queues[k].pop(1 if len(queues[k]) > 1 and rng.random() < 0.05 else 0)  # (ids mostly in version order)
        if not queues[k]:
            del queues[k]
        i += rng.randint(1, 2)
        c.execute("INSERT INTO history(id, kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, trashed) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, 'cli', ?, '', ?, ?)",
                  (i, k[0], k[1], v, k[1] + (".md" if k[0] == "page" else ""), op, body, f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
                   op, detail, "replaced" if body is not None and rng.random() < 0.3 else ""))
    return seqs


def test_every_reader_of_the_trash_rule_agrees_with_it(db_path):
    engine_pg = False
    rng = random.Random(20261206)
    with Brain.open(db_path) as b:
        c = b.conn
        engine_pg = getattr(c, "dialect", "sqlite") == "postgres"
        for _ in range(int(os.environ.get("GBRAIN_HISTORY_EXAMPLES", "8" if engine_pg else "30"))):
            with b.transaction():
                seqs = _history(c, rng)
            deleted = {k for k, s in seqs.items() if max(s)[1] == "delete"}
            for k in [(kind, n) for kind in ("page", "file") for n in NAMES + ["never"]]:
                assert h.in_trash(c, *k) == (k in deleted), k
                if k[0] == "page" and k in deleted and k[1] == unicodedata.normalize("NFC", k[1]) and not k[1].endswith(".md"):
                    row = h._find_deleted(c, k[1])  # (a slug as written is looked up first: its own deletion)
                    assert (row["kind"], row["name"], row["version"]) == ("page", k[1], max(seqs[k])[0])
            listed = [t for t in h.trash_list(b, limit=0) if t["deleted"]]
            # a deletion is listed with its last text (a name deleted with no text before it has none to list)
            assert sorted((t["kind"], t["slug"] or t["path"]) for t in listed) == sorted(k for k in deleted if any(r[2] is not None for r in seqs[k]))
            for t in listed:
                k = (t["kind"], t["slug"] or t["path"])
                assert t["version"] == max(r[0] for r in seqs[k] if r[2] is not None)
            for folder in ("f", "F", "f/sub", "g", "zz"):
                n = sum(1 for (kind, name) in deleted if name.startswith(folder + "/"))
                msg = h._not_in_trash(c, folder)
                assert (f"{n} deleted page(s)/file(s) under {folder}/" in msg) if n else ("deleted page(s)" not in msg), (folder, n, msg)
