"""did-you-mean's near-name tables kept per brain (``core/brain.py: _NearTables``, ``Brain._near_tables``)
and their prefilter (``_CloseIndex``): a miss suggests the same names, in the same order, as the
scan of every name (``_NEAR_FAST`` off), also after another Brain instance or another process
added, renamed or deleted a page or an alias since the tables were built."""
from __future__ import annotations

import difflib
import random

import pytest

from gbrain.core import brain as brainmod
from gbrain.core.brain import Brain, _CloseIndex
from gbrain.errors import NotFound

from conftest import gbrain

PAGES = {
    "people/ana-lima": "# Ana Lima\n",
    "people/ana-lim": "# Ana Lim\n",
    "people/anna-lima": "---\naliases: [Annie L]\n---\n# Anna Lima\n",
    "people/bob-jones": "# Bob Jones\n",
    "people/bob-jone": "# Bob Jone\n",
    "companies/acme": "---\naliases: [Acme Corp, ACME Inc]\n---\n# Acme\n",
    "companies/acme-labs": "# Acme Labs\n",
    "notes/Café culture": "# Café\n",
    "notes/cafe-culture-2": "# Cafe\n",
    "ideas/★": "# star\n",
}
ASKS = ["people/ana-lmia", "people/bob-jnoes", "ana-lmia", "acme-crop", "Acme Crp", "Annie K", "people/carla-dias",
        "notes/cafe-cultrue", "companies/acmee", "★★", "bob", "people/anna-lima-x", "zzzz", "carla-dais", "Carla Diax"]


def miss(b: Brain, name: str) -> list[str]:
    try:
        b.resolve_slug(name)
    except NotFound as e:
        return e.suggestions
    return ["<found>"]


def both(b: Brain, monkeypatch) -> dict:
    """Every ask's suggestions through the kept tables (asked twice: built, then kept) and by the
    scan of every name; asserts they are the same and gives them."""
    fast = {q: miss(b, q) for q in ASKS}
    assert {q: miss(b, q) for q in ASKS} == fast
    monkeypatch.setattr(brainmod, "_NEAR_FAST", False)
    try:
        slow = {q: miss(b, q) for q in ASKS}
    finally:
        monkeypatch.setattr(brainmod, "_NEAR_FAST", True)
    assert fast == slow
    return fast


def test_suggestions_same_with_and_without_the_tables_as_others_write(db_path, monkeypatch):
    monkeypatch.setattr(brainmod, "_NEAR_FAST", True)
    with Brain.open(db_path) as b, Brain.open(db_path) as other:
        for slug, text in PAGES.items():
            b.put(slug, text)
        first = both(b, monkeypatch)
        assert "people/ana-lima" in first["people/ana-lmia"] and "companies/acme" in first["acme-crop"], first
        assert not any("carla" in s for s in first["people/carla-dias"])
        # another Brain instance (its own connection) adds a page and an alias
        other.put("people/carla-dias", "---\naliases: [Carla Diaz]\n---\n# Carla\n")
        added = both(b, monkeypatch)
        assert added["people/carla-dias"] == ["<found>"] and "people/carla-dias" in added["carla-dais"] and "people/carla-dias" in added["Carla Diax"], added
        # ... renames one and deletes another
        other.move_page("people/bob-jones", "people/robert-jones")
        other.delete_page("people/ana-lim")
        after = both(b, monkeypatch)
        assert "people/ana-lim" not in after["people/ana-lmia"] and "people/ana-lim" in first["people/ana-lmia"], (first, after)
        assert "people/bob-jones" not in after["people/bob-jnoes"], after
    # another process (the CLI) writes: a page whose alias is near an ask
    r = gbrain("--db", str(db_path), "put", "people/annie-k", input="---\naliases: [Annie Kay]\n---\n# Annie\n")
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b2:
        b2.resolve_slug("people/ana-lima")
    with Brain.open(db_path) as b:
        before = both(b, monkeypatch)
        r = gbrain("--db", str(db_path), "put", "people/ana-lmai", input="# Ana\n")
        assert r.returncode == 0, r.stderr
        later = both(b, monkeypatch)
        assert "people/ana-lmai" not in before["people/ana-lmia"] and "people/ana-lmai" in later["people/ana-lmia"], (before, later)


def test_the_tables_are_kept_until_the_brain_changes(db_path, monkeypatch):
    monkeypatch.setattr(brainmod, "_NEAR_FAST", True)
    with Brain.open(db_path) as b:
        for slug, text in PAGES.items():
            b.put(slug, text)
        miss(b, "people/zed")
        kept = b._near_tables()
        miss(b, "people/zod")
        assert b._near_tables() is kept
        b.put("people/zed", "# Zed\n")
        assert b._near_tables() is not kept


@pytest.mark.engine_free
def test_close_index_is_difflib_get_close_matches():
    rnd = random.Random(5)
    alphabet = "abcde-/éß★"
    keys = sorted({"".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 12))) for _ in range(400)})
    ix = _CloseIndex(keys)
    for _ in range(300):
        word = "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 12)))
        for n in (1, 3, 5):
            assert ix.close(word, n, 0.6) == difflib.get_close_matches(word, keys, n=n, cutoff=0.6), (word, n)
    assert _CloseIndex([]).close("x", 5, 0.6) == []


@pytest.mark.engine_free
def test_slug_near_keys_is_near_key_per_segment(monkeypatch):
    rnd = random.Random(9)
    alphabet = "aZ9-_/ .'/é"
    names = ["".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 14))) for _ in range(3000)]
    names += ["a-/-b", "/x/", "--/--", "People/Ana_Lima", "a//b", "-", "/"]
    for s in names:
        segs = [brainmod._near_key(p) for p in s.split("/")]
        assert brainmod._slug_near_keys(s) == ("/".join(segs), segs[-1]), s
    monkeypatch.setattr(brainmod, "_NEAR_FAST", False)
    slow = {s: brainmod._near_key(s) for s in names}
    monkeypatch.setattr(brainmod, "_NEAR_FAST", True)
    assert {s: brainmod._near_key(s) for s in names} == slow


def test_a_rolled_back_write_and_a_write_in_the_same_transaction(db_path, monkeypatch):
    """A page written inside this connection's transaction is suggested there and not after its
    rollback; a second Brain on the same connection sees the first one's writes (review: revnear)."""
    monkeypatch.setattr(brainmod, "_NEAR_FAST", True)
    with Brain.open(db_path) as b:
        for slug, text in PAGES.items():
            b.put(slug, text)
        before = both(b, monkeypatch)
        with pytest.raises(RuntimeError):
            with b.transaction():
                b.put("people/ana-lmai", "---\naliases: [Acme Crop]\n---\n# Ana\n")
                inside = both(b, monkeypatch)
                assert "people/ana-lmai" in inside["people/ana-lmia"], inside
                raise RuntimeError("roll back")
        assert both(b, monkeypatch) == before
        twin = Brain(b.conn, b.path)  # two Brain objects on one connection
        assert both(twin, monkeypatch) == before
        b.put("people/ana-lmai", "# Ana\n")
        assert "people/ana-lmai" in both(twin, monkeypatch)["people/ana-lmia"]
        b.delete_page("people/ana-lmai")
        assert both(twin, monkeypatch) == before
        r = gbrain("--db", str(db_path), "restore", "people/ana-lmai")  # another process brings it back from the trash
        assert r.returncode == 0, r.stderr
        assert "people/ana-lmai" in both(twin, monkeypatch)["people/ana-lmia"]


@pytest.mark.engine_free
def test_close_index_is_difflib_get_close_matches_property():
    """Ties, n, cutoffs, empty strings, long words (difflib's autojunk over 200 characters),
    non-BMP characters and combining marks (review: revnear).

    Hypothesis' drawing of an example cost ~10 ms, the check ~1 ms: CI runs 300 of its
    examples (edge sizes, shrinking) and the same cases drawn by a seeded ``random`` (the same
    alphabet, sizes, ``n`` and cutoffs) 1,500 times; ``GBRAIN_FULL_CORPUS=1``: 1,500 of hypothesis'."""
    import os

    from hypothesis import HealthCheck, given, settings, strategies as st

    chars = "ab-/é\u0301\U0001F4DA\U00010000x "
    alpha = st.sampled_from(list(chars))
    word = st.one_of(st.text(alpha, max_size=12), st.text(alpha, min_size=190, max_size=260), st.text(max_size=8))
    cutoffs = [0.6, 0.0, 0.3, 0.9, 1.0]
    full = os.environ.get("GBRAIN_FULL_CORPUS", "") not in ("", "0")

    def same(keys, w, n, cutoff):
        assert _CloseIndex(keys).close(w, n, cutoff) == difflib.get_close_matches(w, keys, n=n, cutoff=cutoff), (keys, w, n, cutoff)

    @settings(max_examples=1500 if full else 300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.lists(word, max_size=40, unique=True), word, st.integers(1, 6), st.sampled_from(cutoffs))
    def check(keys, w, n, cutoff):
        same(keys, w, n, cutoff)

    check()
    rnd = random.Random(155)

    def any_char() -> str:  # (st.text()'s own: any code point but a surrogate)
        c = rnd.randrange(rnd.choice((0x80, 0x800, 0x10000, 0x110000)))
        return chr(c) if not 0xD800 <= c < 0xE000 else "x"

    def rword() -> str:
        kind = rnd.randrange(3)
        if kind == 2:
            return "".join(any_char() for _ in range(rnd.randint(0, 8)))
        return "".join(rnd.choices(chars, k=rnd.randint(0, 12) if kind == 0 else rnd.randint(190, 260)))

    for _ in range(1500):
        keys = list(dict.fromkeys(rword() for _ in range(rnd.randint(0, 40))))
        same(keys, rnd.choice(keys) if keys and rnd.random() < 0.2 else rword(), rnd.randint(1, 6), rnd.choice(cutoffs))


def test_a_schema_upgrade_that_derives_aliases_again_while_this_brain_is_open(db_path, monkeypatch):
    """A newer gbrain's migration writes alias rows again (``db.rederive_pages``) with no history
    row, in the transaction that records the new schema version: a long-lived brain (``serve``)
    suggests from the new rows. On Postgres the newest history row did not change, so the kept
    tables' stamp holds the schema version too (review: revnear)."""
    from gbrain.page.slugs import identity_key, loose_key
    from gbrain.storage import db as dbmod

    monkeypatch.setattr(brainmod, "_NEAR_FAST", True)
    with Brain.open(db_path) as b, Brain.open(db_path) as other:
        for slug, text in PAGES.items():
            b.put(slug, text)
        before = both(b, monkeypatch)
        assert "Annie L" in before["Annie K"], before
        c = other.conn
        with other.transaction():  # what a migration does: alias rows written again, the version recorded
            c.execute("UPDATE aliases SET alias = ?, alias_key = ?, loose_key = ? WHERE alias_key = ?",
                      ("Annie M", identity_key("Annie M"), loose_key("Annie M"), identity_key("Annie L")))
            if dbmod.is_postgres(c):
                c.execute("INSERT INTO gbrain_schema(version) SELECT max(version) + 1 FROM gbrain_schema")
            else:
                c.execute("PRAGMA user_version = %d" % (c.execute("PRAGMA user_version").fetchone()[0] + 1))
        after = both(b, monkeypatch)
        assert "Annie M" in after["Annie K"] and "Annie L" not in after["Annie K"], after
