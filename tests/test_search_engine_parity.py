"""Postgres ranks a page by its names and headings as SQLite does (measured: trial37's "how does
RoPE encode token positions" put *Rotary Embedding*, whose H1 is "Rotary Position Embedding (RoPE)",
first on SQLite and 6th on Postgres, docs/search.md "Both engines"). Postgres indexed aliases (an
H1 other than the title is one) in the 'simple' configuration, as written, where SQLite's FTS5
stems them (until Postgres v57: their 'english' stems): ``positions`` named the page by its H1 on
SQLite only; and the headings evidence (``keyword.HEADING_WEIGHT``) was SQLite's only. And
BM25 measures a page's length in tokens on both (Postgres counted distinct lexemes until v59: a
short page lost to a long one repeating its words). Both engines (``--engine postgres``)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync.importer import import_tree

from conftest import writable_by_this_gbrain, write_tree


@pytest.fixture
def brain(tmp_path, db_path):
    notes = {
        "concepts/rotary-embedding.md": "---\ntitle: Rotary Embedding\n---\n# Rotary Position Embedding (RoPE)\n\n"
                                        "Rotates the query and key vectors by an angle. " + " ".join(f"word{i}" for i in range(20)) + "\n",
        "models/qwen.md": "# Qwen\n\nQwen uses RoPE for token positions; RoPE scaling stretches the positions "
                          "to a longer context. RoPE positions again.\n",
        "models/llama.md": "# Llama\n\nLlama encodes positions with RoPE too.\n",
    }
    notes.update({f"f{i}.md": f"# Filler {i}\n\nfiller text number {i} about nothing.\n" for i in range(20)})
    tree = write_tree(tmp_path / "vault", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def _hits(b, query: str) -> list[dict]:
    return keyword.search(b.conn, query, limit=10)


def test_an_h1_names_its_page_by_a_plural(brain):
    # (Qwen's body holds both words three times: its BM25 is the best; the H1 names the other page)
    hits = _hits(brain, "RoPE positions")
    assert hits[0]["slug"] == "concepts/rotary-embedding", [(h["slug"], h["score"]) for h in hits]



ALIAS_NOTES = {
    "journal/log.md": "---\naliases: [Running Notes]\n---\n# Log\n\nDaily entries about the garden and the weather.\n",
    "scripts/sync.md": "# Sync\n\nThe sync script keeps notes of each pass; a pass can run long.\n",
    "scripts/backup.md": "# Backup\n\nBackup runs nightly; its notes go to the log.\n",
    "bands/who.md": "---\naliases: [The Who]\n---\n# Band\n\nA rock band from London.\n",
    "people/who-is-who.md": "# People\n\nWho wrote which page, and who edits it.\n",
}
ALIAS_NOTES.update({f"f{i}.md": f"# Filler {i}\n\nfiller text number {i} about nothing.\n" for i in range(20)})


@pytest.fixture
def alias_brain(tmp_path, db_path):
    tree = write_tree(tmp_path / "vault", ALIAS_NOTES)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def test_an_alias_names_its_page_by_a_stem(alias_brain):
    """SQLite's FTS5 stems the aliases column (porter): "run notes" holds both words of the
    alias "Running Notes" (weight 5 each), so the page comes first; Postgres indexed aliases as
    written ('simple') and matched only "notes" there: the page came 3rd, under two pages
    holding both words once in their text."""
    hits = _hits(alias_brain, "run notes")
    assert hits[0]["slug"] == "journal/log", [(h["slug"], h["score"]) for h in hits]


def test_an_alias_is_matched_by_a_word_of_its_stem(alias_brain):
    """"runs" matches the alias "Running Notes" by its stem on both engines (the page is listed;
    a name holding the word only by its stem weighs nothing, ``STEM_FIELDS_UNWEIGHTED``, so
    it comes after the pages holding "runs" in their text); Postgres did not list it."""
    for q in ("runs", "run"):
        slugs = [h["slug"] for h in _hits(alias_brain, q)]
        assert "journal/log" in slugs, (q, slugs)
        assert slugs[0] != "journal/log", (q, slugs)
    assert _hits(alias_brain, "running")[0]["slug"] == "journal/log"


def test_an_alias_of_stop_words_still_names_its_page(alias_brain):
    """An alias's stop words stay words ('english' drops "the" and "who"; SQLite's porter keeps
    every word): "the who" names the band by its alias."""
    hits = _hits(alias_brain, "the who")
    assert hits[0]["slug"] == "bands/who", [(h["slug"], h["score"]) for h in hits]


@pytest.mark.engine_free
def test_postgres_v57_indexes_the_aliases_of_an_existing_brain_only(tmp_path, pg_url, monkeypatch):
    """A brain made before v57 (aliases indexed as written) finds the page by "run notes" after the
    upgrade; only the pages holding an alias are written again (no table rewrite: every other row
    keeps its version and its vectors), every page's vectors are what a write gives them now, and
    the BM25 totals follow."""
    from gbrain.storage import pg

    def rows(c) -> dict:
        return {r[0]: r[1:] for r in c.execute("SELECT slug, xmin::text, search_tsv::text, search_names_tsv::text, search_aliases FROM pages")}

    def node(c) -> int:
        return int(c.execute("SELECT relfilenode FROM pg_class WHERE relname = 'pages'").fetchone()[0])

    tree = write_tree(tmp_path / "vault", ALIAS_NOTES)
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 56)
    with Brain.open(pg_url, create=True) as b:
        writable_by_this_gbrain(b.conn)  # (v58's links.label and v60's name_folds, which this code's saves and searches read)
        import_tree(b, tree)
        assert pg.schema_version(b.conn) == 56
        before, file = rows(b.conn), node(b.conn)
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 57)  # (v59 writes every row's token count: tests/test_pg_page_length.py)
    with Brain.open(pg_url) as b:
        c = b.conn
        assert pg.schema_version(c) == 57
        after = rows(c)
        aliased = {s for s, r in before.items() if r[3]}
        assert aliased == {"journal/log", "bands/who"}
        assert {s for s in before if before[s] != after[s]} == aliased  # the others: same row version, same vectors
        assert node(c) == file
        with b.transaction():  # what a write gives every page now
            c.execute("UPDATE pages SET title = title")
        assert {s: r[1:] for s, r in rows(c).items()} == {s: r[1:] for s, r in after.items()}
        fresh = tuple(map(int, c.execute("SELECT count(*), sum(length(search_tsv)) FROM pages").fetchone()))
        assert tuple(map(int, c.execute("SELECT pages, lexemes FROM search_totals").fetchone())) == fresh
    monkeypatch.undo()  # (this search reads v59's token counts)
    with Brain.open(pg_url) as b:
        assert _hits(b, "run notes")[0]["slug"] == "journal/log"
        assert "journal/log" in [h["slug"] for h in _hits(b, "runs")]


@pytest.mark.engine_free
def test_postgres_copy_gives_the_search_vectors_an_import_gives(tmp_path, pg_url, pg_server):
    """Review of v57: search_tsv/search_names_tsv are plain columns kept by a BEFORE trigger;
    `gbrain copy` leaves them out (storage/copy.py COMPUTED) and inserts the rows: a copy
    SQLite → Postgres and Postgres → Postgres holds the vectors (and BM25 totals) an import into
    Postgres gives (and the pages' tokens, v59), and back to SQLite it is the same brain."""
    from conftest import new_pg_database
    from gbrain import operations as ops

    tree = write_tree(tmp_path / "vault", ALIAS_NOTES)
    lite, direct, again = str(tmp_path / "a.db"), new_pg_database(pg_server), new_pg_database(pg_server)
    for db in (lite, direct):
        with Brain.open(db, create=True) as b:
            import_tree(b, tree)

    def vectors(url) -> dict:
        with Brain.open(url) as b:
            rows = {r[0]: r[1:] for r in b.conn.execute("SELECT slug, search_tsv::text, search_names_tsv::text, search_len FROM pages")}
            totals = tuple(map(int, b.conn.execute("SELECT pages, lexemes, tokens FROM search_totals").fetchone()))
            return {"rows": rows, "totals": totals, "first": _hits(b, "run notes")[0]["slug"]}

    for src, dst in ((lite, pg_url), (pg_url, again), (again, str(tmp_path / "back.db"))):
        res = ops.run("copy", {"from": src, "to": dst}, ops.Context(surface="cli"))
        assert res["equal"], res["differences"]
    want = vectors(direct)
    assert want["first"] == "journal/log" and all(r[0] and r[1] and r[2] for r in want["rows"].values())
    assert vectors(pg_url) == want and vectors(again) == want


LENGTH_NOTES = {
    # the same query words once each; the short page says little else, the long one repeats a
    # few words many times: 12 tokens against 300, but 10 distinct lexemes against 6
    "notes/short.md": "# Alpha\n\nZebra quagga grazing beside calm rivers today.\n",
    "notes/long.md": "# Beta\n\nZebra quagga. " + "Herd herd herd moves. " * 70 + "\n",
}
LENGTH_NOTES.update({f"f{i}.md": f"# Filler {i}\n\nfiller text number {i} about nothing in particular at all.\n" for i in range(20)})


@pytest.fixture
def length_brain(tmp_path, db_path):
    tree = write_tree(tmp_path / "vault", LENGTH_NOTES)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def test_a_short_page_outranks_a_long_one_repeating_its_words(length_brain):
    """BM25 discounts a term in a long page: FTS5 measures a page's length in tokens, so the short
    page (12 tokens) beats the long one (300 tokens) holding the query's words as often. Postgres
    measured it in distinct lexemes (10 and 6: the long page looked shorter) and put the long one
    first (measured: "what file types does Obsidian support?" 1st on SQLite, 5th on Postgres)."""
    hits = _hits(length_brain, "zebra quagga")
    assert [h["slug"] for h in hits[:2]] == ["notes/short", "notes/long"], [(h["slug"], h["score"]) for h in hits]
    assert hits[0]["score"] > hits[1]["score"]


PATH_NOTES = {
    # the word in the note's file name and six times in its text; the person's folded name holds it
    "people/Łukasz Nowak.md": "# Łukasz Nowak\n\nPartner at Vistula Ventures in Warsaw. Leads seed rounds in Polish fintech, and more words about him and his fund here.\n",
    "notes/calls with lukasz.md": "# Calls with the Warsaw fund\n\nLukasz asked about the runway. Lukasz wants the memo by Friday. "
                                  "Lukasz again. Lukasz once more, Lukasz.\n",
    "notes/the-who-meetings.md": "# Band notes\n\nA rock band.\n",
}
PATH_NOTES.update({f"filler/f{i}.md": f"# Filler {i}\n\nNothing here {i}, a memo and a call.\n" for i in range(40)})


@pytest.fixture
def path_brain(tmp_path, db_path):
    tree = write_tree(tmp_path / "vault", PATH_NOTES)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def test_a_file_name_word_counts_once(path_brain):
    """FTS5 holds a path's word once (weight 2); Postgres indexed the path in the 'english' and the
    'simple' configurations, so a word of a file name counted twice in BM25 (until Postgres v70:
    'english' stems, and 'simple' only for a stop word 'english' drops, as aliases since v57):
    `lukasz` put the note *calls with lukasz* (the word five times in its text) above *Łukasz
    Nowak* on Postgres only (1.056 to 1.044; SQLite 1.094 to 1.056)."""
    hits = _hits(path_brain, "lukasz")
    assert [h["slug"] for h in hits[:2]] == ["people/Łukasz Nowak", "notes/calls with lukasz"], [(h["slug"], h["score"]) for h in hits]
    # (a file name of stop words still names its page; a stem still finds it)
    assert _hits(path_brain, "the who")[0]["slug"] == "notes/the-who-meetings"
    assert _hits(path_brain, "meeting")[0]["slug"] == "notes/the-who-meetings"
    if getattr(path_brain.conn, "dialect", "sqlite") == "postgres":
        pos = dict(path_brain.conn.execute("SELECT lexeme, array_length(positions, 1) FROM pages p, unnest(ts_filter(p.search_names_tsv, '{b}')) "
                                           "WHERE p.slug = 'notes/calls with lukasz'").fetchall())
        assert pos == {"call": 1, "with": 1, "lukasz": 1, "note": 1, "md": 1}, pos


@pytest.mark.engine_free
def test_postgres_v70_indexes_every_path_once(tmp_path, pg_url, pg_server, monkeypatch):
    """A brain made at v69 (each path word twice) gets every page's vectors a write gives now,
    its BM25 totals follow, and `lukasz` ranks the person first; the did-you-mean vocabulary is
    made again at its next use."""
    from gbrain.search import spell
    from gbrain.storage import pg

    tree = write_tree(tmp_path / "vault", PATH_NOTES)
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 69)
    with Brain.open(pg_url, create=True) as b:
        writable_by_this_gbrain(b.conn)  # (an import binds: v88's sync_root.machine)
        import_tree(b, tree)
        assert _hits(b, "lukasz")[0]["slug"] == "notes/calls with lukasz"  # (as before v70)
        spell.suggest(b.conn, "lukaz")
        assert b.conn.execute("SELECT count(*) FROM search_vocab_state").fetchone()[0] == 1
        before = {r[0]: r[1] for r in b.conn.execute("SELECT slug, search_tsv::text FROM pages")}
    monkeypatch.undo()
    with Brain.open(pg_url) as b:
        c = b.conn
        assert pg.schema_version(c) == pg.PG_SCHEMA_VERSION >= 70
        assert c.execute("SELECT count(*) FROM search_vocab_state").fetchone()[0] == 0
        after = {r[0]: r[1] for r in c.execute("SELECT slug, search_tsv::text, search_names_tsv::text, search_len FROM pages")}
        assert all(before[s] != after[s] for s in before)  # (every page has a path)
        with b.transaction():  # what a write gives every page now
            c.execute("UPDATE pages SET title = title")
        assert {r[0]: r[1] for r in c.execute("SELECT slug, search_tsv::text, search_names_tsv::text, search_len FROM pages")} == after
        fresh = tuple(map(int, c.execute("SELECT count(*), sum(length(search_tsv)), sum(search_len) FROM pages").fetchone()))
        assert tuple(map(int, c.execute("SELECT pages, lexemes, tokens FROM search_totals").fetchone())) == fresh
        assert _hits(b, "lukasz")[0]["slug"] == "people/Łukasz Nowak"
    # (and what a fresh import into a brain made at this version gives: vectors, lengths, totals)
    from conftest import _DROP_AFTER_TEST, new_pg_database

    url = new_pg_database(pg_server)
    _DROP_AFTER_TEST.append((pg_server, url))
    with Brain.open(url, create=True) as f:
        import_tree(f, tree)
        assert {r[0]: r[1] for r in f.conn.execute("SELECT slug, search_tsv::text, search_names_tsv::text, search_len FROM pages")} == after
        assert tuple(map(int, f.conn.execute("SELECT pages, lexemes, tokens FROM search_totals").fetchone())) == fresh


@pytest.fixture
def para_brain(tmp_path, db_path):
    """obsidian-hub's shape (a user's miss, 2026-12-06): the one-line stub *PARA*, plugin pages
    named ``PARA Workflower`` / ``PARA Shortcuts`` that say "the PARA method", a long guide with a
    ``## PARA`` section, and *PARA Starter Kit*."""
    notes = {
        "Concepts/PARA.md": "# PARA\n\nAdd a description below this line.\n",
        "Plugins/para-workflower.md": "---\naliases:\n- PARA Workflower\n---\n# PARA Workflower\n\n"
                                      "Helpful commands for starting and working in your vault with the PARA method.\n",
        "Plugins/para-shortcuts.md": "---\naliases:\n- PARA Shortcuts\n---\n# PARA Shortcuts\n\n"
                                     "Shortcuts for notes kept by the PARA method: projects, areas, resources, archives.\n",
        "Guides/for Knowledge Management.md": "# for Knowledge Management\n\n## Methodologies\n\nMany methods.\n\n## PARA\n\n"
                                              "The PARA method by Tiago Forte sorts notes by actionability. "
                                              + " ".join(f"word{i}" for i in range(60)) + "\n\n## Zettelkasten\n\nA method of linked notes.\n",
        "Vaults/PARA Starter Kit.md": "# PARA Starter Kit\n\nA vault to start with: folders for projects and areas. "
                                      + " ".join(f"kit{i}" for i in range(30)) + "\n",
        "Vaults/Obsidian JG Method.md": "# Obsidian JG Method\n\nA method for journaling.\n",
    }
    notes.update({f"f{i}.md": f"# Filler {i}\n\nfiller text number {i} about nothing.\n" for i in range(20)})
    tree = write_tree(tmp_path / "vault", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def test_a_page_the_query_names_in_part_comes_first(para_brain):
    """`PARA method`: the page titled *PARA*, whose whole name the query holds, before the
    pages that say both words (it was 8th on obsidian-hub: its name evidence was only the
    query's IDF share, 0.28, against pages holding "method" too); *PARA Starter Kit* is still
    first for its whole name. Both engines, the same order."""
    assert [h["slug"] for h in _hits(para_brain, "PARA method")][0] == "Concepts/PARA"
    assert [h["slug"] for h in _hits(para_brain, "PARA starter kit")][:2] == ["Vaults/PARA Starter Kit", "Concepts/PARA"]


def test_a_question_takes_no_contained_name_evidence(para_brain, monkeypatch):
    """A question names its topic among grammar words (known items' "how do I create a table?"
    put the sandbox page *Table* above the answer): a query of more than
    ``CONTAINED_MAX_WORDS`` words, stop words too, scores as it did without the evidence."""
    question = "how do I use the PARA method?"
    with_it = {h["id"]: h["score"] for h in keyword.rank(para_brain.conn, question, limit=10)}
    monkeypatch.setattr(keyword, "CONTAINED_WEIGHT", 0.0)
    assert {h["id"]: h["score"] for h in keyword.rank(para_brain.conn, question, limit=10)} == with_it
    short = {h["id"]: h["score"] for h in keyword.rank(para_brain.conn, "PARA method", limit=10)}
    monkeypatch.setattr(keyword, "CONTAINED_WEIGHT", 1.0)
    assert {h["id"]: h["score"] for h in keyword.rank(para_brain.conn, "PARA method", limit=10)} != short


@pytest.fixture
def versions_brain(tmp_path, db_path):
    """obsidian-help's release notes' shape: pages titled ``1.6``, ``1.6.1`` and ``1.6.6``."""
    notes = {
        "Release notes/v1.6.md": "# 1.6\n\nRelease notes of version 1.6: new features.\n",
        "Release notes/v1.6.1.md": "# 1.6.1\n\nFixes 1.6.1: a crash fixed since 1.6 and 1.6.0, 1.6 again.\n",
        "Release notes/v1.6.6.md": "# 1.6.6\n\nFixes in 1.6.6 after 1.6, 1.6.5 and 1.6.4: 6 fixes.\n",
    }
    notes.update({f"f{i}.md": f"# Filler {i}\n\nfiller text number {i} about nothing.\n" for i in range(20)})
    tree = write_tree(tmp_path / "vault", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def test_a_name_repeating_a_word_is_not_held_by_one(versions_brain, monkeypatch):
    """``1.6`` does not hold the name ``1.6.6`` (nor ``1.6.1``) whole: the name says ``6`` (``1``)
    twice. Counted as a set of words, it earned the contained-name bonus at full coverage, the
    exact-name bonus's equal, and obsidian-help's *1.6.6* came before *1.6* for "1.6". Both engines."""
    assert [h["slug"] for h in _hits(versions_brain, "1.6")][0] == "Release notes/v1.6"
    monkeypatch.setattr(keyword, "CONTAINED_WEIGHT", 0.0)
    without = {h["id"]: h["score"] for h in keyword.rank(versions_brain.conn, "1.6", limit=10)}
    monkeypatch.setattr(keyword, "CONTAINED_WEIGHT", 1.0)
    assert {h["id"]: h["score"] for h in keyword.rank(versions_brain.conn, "1.6", limit=10)} == without


@pytest.mark.engine_free
@pytest.mark.parametrize("name, words, whole", [
    ("1.6.6", ["1", "6"], False),
    ("1.6.6", ["1", "6", "6"], True),
    ("Bora Bora", ["bora", "trip"], False),
    ("Bora Bora", ["bora", "bora", "trip"], True),
    ("PARA", ["para", "method"], True),
    ("PARA Starter Kit", ["para", "method"], False),
])
def test_name_held_whole_counts_repeated_words(name, words, whole):
    assert keyword._name_held_whole(name, "", words, set()) is whole


@pytest.mark.engine_free
@pytest.mark.parametrize("name, words, prefixes, whole", [
    ("ZetabS", ["zet", "method"], {"zet"}, False),  # a prefix ``zet*`` names any word it begins
    ("PARA", ["para", "method"], {"para"}, True),  # ``para*`` typed whole is the word
    ("Themes", ["theme", "dark"], set(), True),  # a plural s/es more or less, as names are named
])
def test_name_held_whole_takes_words_typed_whole(name, words, prefixes, whole):
    assert keyword._name_held_whole(name, "", words, prefixes) is whole


def test_a_prefix_holds_no_name(tmp_path, db_path):
    """obsidian-hub's "zet* method" put the person page *ZetabS* first: the prefix ``zet*`` held
    its name whole (a prefix names every word it begins). Both engines."""
    notes = {
        "Guides/Zettelkasten.md": "# Zettelkasten\n\nThe zettelkasten method: a method of linked notes.\n",
        "People/ZetabS.md": "# ZetabS\n\nA person; a method.\n",
    }
    notes.update({f"f{i}.md": f"# Filler {i}\n\nfiller text number {i} about nothing.\n" for i in range(20)})
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        assert [h["slug"] for h in _hits(b, "zet* method")][0] == "Guides/Zettelkasten"


@pytest.fixture
def inbox_brain(tmp_path, db_path):
    """obsidian-hub's plugin pages *Inbox* and *Inboxer* (a user's miss, 2026-12-07: "inbox" put
    *Inboxer* first), their words as the hub writes them, beside *Inbox Organiser*, *Telegram
    Inbox* and the folder note *06 - Inbox*."""
    def plugin(name: str, says: str) -> str:
        pid = name.lower().replace(" ", "-")
        return (f"---\nplugin-id: {pid}\naliases:\n- {name}\ntags: \n- \npublish: true\n---\n\n# {name}\n\n"
                f"Plugin ID: `{pid}`\nDeveloped by: [[someone]]\n\n{says}\n")
    notes = {
        "Plugins/inbox.md": plugin("Inbox", 'Show in app notification if there is data to process in the "inbox" note.'),
        "Plugins/inboxer.md": plugin("Inboxer", "Adds commands to quickly add entries to INBOX and TIMELINE sections"),
        "Plugins/inbox-organiser.md": plugin("Inbox Organiser", "Organise the notes of your inbox folder."),
        "Plugins/telegram-inbox.md": plugin("Telegram Inbox", "Send notes to your inbox from Telegram."),
        "06 - Inbox/06 - Inbox.md": "# 06 - Inbox\n\nNotes waiting to be sorted into the hub.\n",
    }
    notes.update({f"f{i}.md": f"# Filler {i}\n\nfiller text number {i} about nothing.\n" for i in range(20)})
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        yield b


def test_a_page_named_as_typed_comes_before_a_longer_name_of_its_stem(inbox_brain):
    """"inbox" put *Inboxer* (its stem, porter's and Snowball's ``inbox``) first: the query word
    names ``Inboxer`` by their shared start (``STEM_LENGTH_RATIO``), so the one-word query held
    its name "whole" and it took the contained-name bonus, the exact-name bonus's equal, and its
    body's ``INBOX`` did the rest. A query word shorter than the name's word does not hold it.
    Both engines."""
    assert [h["slug"] for h in _hits(inbox_brain, "inbox")][0] == "Plugins/inbox"
    assert [h["slug"] for h in _hits(inbox_brain, "Inboxer")][0] == "Plugins/inboxer"


def test_a_plural_query_word_holds_no_longer_name_of_its_singular(inbox_brain):
    """"inboxes" (obsidian-hub, 2026-12-07, after the rule above) still put *Inboxer* first, above
    *Inbox*, the page named but for the plural: ``inboxer`` is not ``inboxes`` with letters after
    it, so the query held *Inboxer* whole and its contained-name bonus beat *Inbox*'s plural
    share. The query word's singular is the query word too. Both engines."""
    assert [h["slug"] for h in _hits(inbox_brain, "inboxes")][0] == "Plugins/inbox"


@pytest.mark.engine_free
@pytest.mark.parametrize("name, words, whole", [
    ("Inboxer", ["inbox"], False),  # the query's word is only the start of the name's
    ("Inbox", ["inboxer"], True),  # the query's word says all of the name's, and more (names_word's stem rule)
    ("Edit", ["edited", "notes"], True),
    ("Sherlocking", ["sherlocked", "plugins"], True),  # two forms of one stem, neither the other's start
    ("CodeGen2", ["codegen"], False),
    ("Themes", ["theme"], True),  # a plural s/es more or less, as names are named
    ("Inboxer", ["inboxes"], False),  # a plural query word: its singular is only the start of the name's
    ("Statue", ["status"], False),  # (``status`` is no plural, but its ``statu`` starts ``statue`` all the same)
    ("User", ["uses"], False),
    ("Inbox", ["inboxes"], True),
    ("Classes", ["class"], True),  # (a word ending in ``ss`` is no plural: ``class`` holds ``Classes``)
    ("Class", ["classes"], True),
    ("Boxes", ["boxes"], True),
])
def test_name_held_whole_needs_the_name_words_whole(name, words, whole):
    assert keyword._name_held_whole(name, "", words, set()) is whole


def test_a_page_named_as_typed_comes_before_every_page_it_does_not_name(tmp_path, db_path):
    """obsidian-hub's "MOC" (2026-12-07): *Maps of Content (MOC)*, whose alias is ``MOC``, came
    second, below the template *T - MOCs*: the query held that name whole (``T`` is a stop word,
    ``MOCs`` the plural), so it took the contained-name bonus, the exact-name bonus's equal, and
    its body and the links labelled "MOC" did the rest. A page named by the query as typed (title,
    alias, H1, file name) comes before every page it does not name (``keyword.EXACT_NAMES_FIRST``);
    among those named, the order is the ranking's. Both engines."""
    notes = {
        "Concepts/Maps of Content (MOC).md": "---\naliases:\n- MOC\n- MOCs\n---\n# Maps of Content (MOC)\n\n#placeholder/description\n",
        "Templates/T - MOCs.md": "# T - MOCs\n\nA template for a MOC: the MOC's links, the MOC's sections. Use this MOC template for every MOC.\n",
    }
    notes.update({f"Notes/n{i}.md": f"# Note {i}\n\nSee the [[T - MOCs|MOC]] template, number {i}.\n" for i in range(6)})
    notes.update({f"f{i}.md": f"# Filler {i}\n\nfiller text number {i} about nothing.\n" for i in range(20)})
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        assert [h["slug"] for h in _hits(b, "MOC")][:2] == ["Concepts/Maps of Content (MOC)", "Templates/T - MOCs"]


def test_every_page_named_as_typed_comes_first_past_twenty(tmp_path, db_path):
    """25 notes named *Meeting* (one a folder: a vault of weekly notes), beside *Meetings* and
    *Meeting notes*: the exact-name look-up took the first 20 pages of a title (``LIMIT 20``), so
    five notes named as typed got no exact-name bonus and came after *Meetings*, the page named
    only but for the plural, which :data:`keyword.EXACT_NAMES_FIRST` and ``_typed_names_first``
    keep below them. Both engines."""
    notes = {f"m{i}/Meeting.md": f"# Meeting\n\nweekly sync {i}\n" for i in range(25)}
    notes["Meeting notes.md"] = "# Meeting notes\n\nmeeting meeting meeting meeting meeting\n"
    notes["Meetings.md"] = "# Meetings\n\nmeeting list meeting meeting\n"
    notes.update({f"f{i}.md": f"# Filler {i}\n\nfiller {i} meeting\n" for i in range(8)})
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        got = [h["slug"] for h in keyword.search(b.conn, "meeting", limit=30)]
        assert sorted(got[:25]) == sorted(f"m{i}/Meeting" for i in range(25)) and got[25] == "Meetings", got
