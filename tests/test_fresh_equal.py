"""An incremental brain always equals a fresh import of its own tree.

Whatever sequence of disk edits, moves, deletes, CLI writes, registry (MCP-level) writes, syncs,
imports, embeds and embedding-model switches happened, every derived view (pages, titles, tags,
links and where they resolve, timeline entries, raw rows, files, the FTS index, which pages'
embeddings are fresh per model and their chunks) equals what importing the exported tree into
a new database and running the same embeds gives. Staleness is also checked against a model
kept by the test: a page is fresh for a model exactly when it was embedded with that model and
its title, compiled truth and timeline have not changed since. A hypothesis rule-based state machine drives random sequences; CI runs a
bounded number of examples, ``GBRAIN_STATEFUL_EXAMPLES=500`` runs more.

Both engines: under ``--engine postgres`` the incremental brain and every fresh import are
Postgres databases (copies of the session's new brain, dropped at once), and the comparison
holds Postgres' own derived state too (:func:`gbrain.sync.verify.engine_snapshot`: the
trigger-kept tsvectors, the BM25 totals), with fewer examples (``GBRAIN_STATEFUL_PG_EXAMPLES``).
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule, run_state_machine_as_test

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import GBrainError
from gbrain.sync.verify import fresh_import_differences

EXAMPLES = int(os.environ.get("GBRAIN_STATEFUL_EXAMPLES", "12"))
STEPS = int(os.environ.get("GBRAIN_STATEFUL_STEPS", "25"))
# Postgres: each fresh import is a new database (a template copy) and its writes cost more
PG_EXAMPLES = int(os.environ.get("GBRAIN_STATEFUL_PG_EXAMPLES", "4"))


class Stores:
    """New brains on the run's engine: a SQLite file in a folder (a copy of the session's new
    brain, ``sqlite_brain_template``: a first open's 73 schema versions cost ~0.15 CPU-s and
    ~0.6 s of syncs on a loaded disk, per fresh import), or an empty Postgres database copied from
    the session's new brain (``pg_brain_template``), dropped when left."""

    def __init__(self, engine: str, request):
        self.pg = engine == "postgres"
        if self.pg:
            self.admin = request.getfixturevalue("pg_server")
            self.template = request.getfixturevalue("pg_brain_template")
        elif request is not None:
            self.sqlite_template = request.getfixturevalue("sqlite_brain_template")

    @contextlib.contextmanager
    def new(self, folder: Path, name: str):
        if not self.pg:
            from conftest import new_sqlite_brain

            try:
                yield new_sqlite_brain(self.sqlite_template, folder / name)
            finally:
                for suffix in ("", "-wal", "-shm"):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(folder / (name + suffix))
            return
        from conftest import new_pg_brain

        with new_pg_brain(self.admin, self.template) as url:
            yield url


@pytest.fixture
def stores(engine, request) -> Stores:
    return Stores(engine, request)


@pytest.fixture
def fresh_diff(stores, tmp_path):
    """``fresh_diff(brain)``: :func:`fresh_import_differences` with the fresh import on the run's engine."""
    def diff(b: Brain) -> dict:
        with stores.new(tmp_path, "fresh.db") as where:
            return fresh_import_differences(b, fresh_db=where)
    return diff

# a few names in two folders, so titles, file names and relative paths collide
# (a CJK folder and file name: the path's folders and the title are in search_cjk's bigrams)
# (a Logseq graph's pages folder: its opening key:: lines are page properties under property_syntax auto
# while the graph's logseq/config.edn is there: disk_graph_config)
# (a file name and a title with accents: name_folds, the names keyed but for them)
# (a Logseq namespace page's file: titled Team/Soren in the graph's pages folder under the config's
# :file/name-format :triple-lowbar, else by its file name: disk_graph_config)
NAMES = ["people/ana", "people/soren", "people/soren-2", "notes/soren", "notes/log-1", "Soren", "会議/データ同期", "pages/ana", "people/søren",
         "pages/Team___Soren"]
# (compatibility characters: search_words' NFKC words; CJK: search_cjk's bigrams)
TITLES = [None, "Soren", "Ana", "Log 1", "同期メモ", "Zoë Łuk", "ＧＰＴ４ ﬁnance"]
LINKS = ["[S](soren.md)", "[[Soren]]", "[[Ana]]", "[a](../people/ana.md)", "[[people/soren-2]]", "[x](/notes/soren.md)", "![[soren]]", "[[Logbook]]", "[[Ana|the lead]]", "[Soren](soren.md)", "[[Team/Soren]]"]
TAGS = ["alpha", "beta"]
MODELS = ["fake-16", "fake-24"]  # deterministic offline models (gbrain.search.embeddings)
DATES = ["2025-01-02", "2025-03-04"]

bodies = st.builds(
    # the Obsidian trial's shapes ride on the other choices: a page titled Ana writes its tags
    # under the singular `tag:`, one titled Log 1 has an impossible date, one link adds a
    # footnote whose text links, three links add inline math holding a #tag; a page titled Soren
    # links Ana from a property, one with one tag links two pages from a list property, one without
    # links holds Bear's closed tag #to read# (config tag_syntax); a page
    # titled ＧＰＴ４ ﬁnance has the aliases Logbook, 日誌 and Zoë and links it itself (other pages may link it too);
    # one without a title and with one timeline entry opens with key:: lines (Logseq properties in a
    # pages folder or under property_syntax logseq, else Dataview fields)
    lambda title, links, tags, tl: (
        (("---\n" + (f"title: {title}\n" if title else "") + ("created: 2024-02-30\n" if title == "Log 1" else "") + ("aliases: [Logbook, 日誌, Zoë]\n" if title == TITLES[-1] else "")
          + (f"{'tag' if title == 'Ana' else 'tags'}: [{', '.join(tags)}]\n" if tags else "")
          + ("related: \"[[Ana]]\"\n" if title == "Soren" else "")
          + ("people:\n  - \"[[Soren]]\"\n  - \"[[notes/soren|N]]\"\n" if len(tags) == 1 else "") + "---\n") if (title or tags) else "")
        + ("title:: Ana\nalias:: Lg\ntags:: beta\n" if title is None and len(tl) == 1 else "")
        + ("Body ", "Body ﬁnancial データ同期処理、ｶﾀｶﾅ ", "Body ＧＰＴ x² ")[len(tags)] + " ".join(links) + (" See [[Logbook]]." if title == TITLES[-1] else "") + "\n"
        + ("\nA claim.[^1]\n\n[^1]: Soren, see [[Ana]]\n" if len(links) == 1 else "")
        + ("\nEnergy $E #beta$ here.\n" if len(links) == 3 else "")
        + ("\nBear's #to read# tag.\n" if len(links) == 0 else "")
        + ("\n---\n\nMore text.\n" if len(links) == 2 else "")
        + ("\n---\n\n## Timeline\n\n" + "".join(f"- **{d}** | note — entry {i}\n" for i, d in enumerate(tl)) if tl else "")
    ),
    st.sampled_from(TITLES),
    st.lists(st.sampled_from(LINKS), max_size=3),
    st.lists(st.sampled_from(TAGS), max_size=2, unique=True),
    st.lists(st.sampled_from(DATES), max_size=2),
)
names = st.sampled_from(NAMES)
# attachments' bytes (two of them alike: one history body for both; one above history.pack's
# small-edit span): a file's current version is kept by reference to its row (v35)
BLOBS = [b"\x89PNG one \x00\xff", b"\x89PNG one \x00\xff", b"%PDF " + bytes(range(256)) * 3]

#: canvases: text cards and a group (searchable: canvas_cards), a file node, bytes that are no JSON
CANVASES = [b'{"nodes":[{"id":"t","type":"text","text":"roadmap [[a]]"},{"id":"g","type":"group","label":"team"}]}',
            b'{"nodes":[{"id":"f","type":"file","file":"a.md"},{"id":"t","type":"text","text":"harvest"}]}', b"{not json"]

#: docs trees' nav files (their entries: nav_links, read from the bytes), one that does not load
NAVS = [("people/TOC.yml", b"- name: People\n  items:\n  - name: Ana\n    href: ana.md\n  - href: ../notes/soren.md\n"),
        ("mkdocs.yml", b"docs_dir: .\nnav:\n  - Soren: Soren.md\n  - Notes: [notes/log-1.md, people/Soren-2.md]\n"),
        ("people/TOC.yml", b"- name: [unclosed\n")]


def folder_only(rule):
    """Marks a rule that changes the folder ``v`` alone, never the brain: the comparison with a
    fresh import of the brain's own export (:meth:`FreshEqual.equals_fresh_import`) would give
    the answer it gave after the step before, so it is not made again after this one."""
    @functools.wraps(rule)
    def step(self, **kw):
        rule(self, **kw)
        self.brain_untouched = True
    return step


def sidecar(name: str) -> str:
    d, _, n = name.rpartition("/")
    return (d + "/" if d else "") + ".raw/" + n + ".json"


class FreshEqual(RuleBasedStateMachine):
    """State: a folder ``v`` bound to a brain (``b.db``, or a Postgres database). Rules change
    either side; invariants compare."""

    stores: Stores  # set by the test: the run's engine

    @initialize(start=st.lists(st.tuples(names, bodies), max_size=4))
    def setup(self, start):
        self.tmp = Path(tempfile.mkdtemp(prefix="gbrain-sm-"))
        self.v = self.tmp / "v"
        self.v.mkdir()
        self.exit = contextlib.ExitStack()
        self.db = self.exit.enter_context(self.stores.new(self.tmp, "b.db"))
        for name, body in start:
            self._write(name, body)
        self.brain = Brain.open(self.db)
        self.brain.set_config("embedding_model", MODELS[0])
        self.synced = False
        # the test's own account of staleness: (page id, model) -> the text it was embedded from
        self.embedded: dict[tuple[int, str], tuple] = {}
        self.sync()

    def teardown(self):
        if hasattr(self, "brain"):
            self.brain.close()
            self.exit.close()
            shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- helpers --------------------------------------------------------------

    def _write(self, name: str, body: str) -> None:
        p = self.v / (name + ".md")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(body, encoding="utf-8")

    def _op(self, name: str, args: dict):
        """A registry call on a connection of its own, as the MCP server or `call` makes it.
        Refusals (no such page, a write that would lose data) are answers, not failures."""
        try:
            return ops.run(name, args, ops.Context(db=self.db))
        except GBrainError:
            return None

    def _cli(self, *argv: str) -> int:
        from gbrain.cli import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(["--db", self.db, *argv])
                code = 0
            except SystemExit as e:
                code = e.code or 0
        assert code in (0, 1), (argv, code, err.getvalue())
        return code

    # ---- disk ---------------------------------------------------------------------

    @rule(name=names, body=bodies)
    @folder_only
    def disk_write(self, name, body):
        self._write(name, body)

    @rule(name=names)
    @folder_only
    def disk_delete(self, name):
        p = self.v / (name + ".md")
        if p.exists():
            p.unlink()

    @rule(src=names, dst=names)
    @folder_only
    def disk_move(self, src, dst):
        a, b = self.v / (src + ".md"), self.v / (dst + ".md")
        if a.exists() and not b.exists():
            b.parent.mkdir(parents=True, exist_ok=True)
            os.rename(a, b)

    @rule(i=st.integers(0, 99), j=st.integers(0, 99))
    def disk_swap(self, i, j):
        """Two notes of the folder (the ``i``-th and ``j``-th, mod their number) exchange names
        through a temp name (``a → tmp, b → a, tmp → b``) between two syncs: the pages move with
        their text (``Plan.swaps``), or are two edits when they cannot (a sidecar, a conflict copy,
        identical texts, a brain edit the first sync could not take)."""
        notes = sorted(p for p in self.v.rglob("*.md") if ".raw" not in p.parts)
        if len(notes) < 2 or i % len(notes) == j % len(notes):
            return
        a, b = notes[i % len(notes)], notes[j % len(notes)]
        self.sync()
        if a.exists() and b.exists():  # (a conflict copy the sync wrote shifts no note away)
            tmp = self.v / "swap-temp.tmp"
            os.rename(a, tmp)
            os.rename(b, a)
            os.rename(tmp, b)
        self.sync()

    @rule(name=names, n=st.integers(0, 2))
    @folder_only
    def disk_sidecar(self, name, n):
        p = self.v / sidecar(name)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"sources": {"s" + str(i): {"v": i} for i in range(n)}}), encoding="utf-8")

    @rule(name=names, n=st.integers(0, len(BLOBS)))
    @folder_only
    def disk_attachment(self, name, n):
        p = self.v / (name + ".png")
        p.parent.mkdir(parents=True, exist_ok=True)
        if n < len(BLOBS):
            p.write_bytes(BLOBS[n] + name.encode() * (n == 1))
        elif p.exists():
            p.unlink()

    @rule(name=names, n=st.integers(0, len(CANVASES)))
    @folder_only
    def disk_canvas(self, name, n):
        p = self.v / (name + ".canvas")
        p.parent.mkdir(parents=True, exist_ok=True)
        if n < len(CANVASES):
            p.write_bytes(CANVASES[n])
        elif p.exists():
            p.unlink()

    @rule(n=st.integers(0, len(NAVS)), top=st.booleans())
    @folder_only
    def disk_nav(self, n, top):
        """A docs tree's nav file comes, changes or goes: the pages it lists gain or lose it as a backlink."""
        p = self.v / (NAVS[n][0] if n < len(NAVS) else ("mkdocs.yml" if top else "people/TOC.yml"))
        p.parent.mkdir(parents=True, exist_ok=True)
        if n < len(NAVS):
            p.write_bytes(NAVS[n][1])
        elif p.exists():
            p.unlink()

    @rule(present=st.sampled_from([None, b"{:meta/version 1}\n", b"{:meta/version 1\n :file/name-format :triple-lowbar}\n",
                                   b"{:meta/version 1 ;; the same settings, another text\n :file/name-format :triple-lowbar}\n"]))
    @folder_only
    def disk_graph_config(self, present):
        """The Logseq graph's ``logseq/config.edn`` comes, goes or changes its ``:file/name-format``
        (or only its text: nothing derived again): ``pages/ana`` is then read as a Logseq page or as
        an Obsidian note (its opening key:: lines, its tags as links), ``pages/Team___Soren`` titled
        ``Team/Soren`` or by its file name."""
        p = self.v / "logseq" / "config.edn"
        if present:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(present)
        elif p.exists():
            p.unlink()

    @rule(src=names, dst=names)
    @folder_only
    def disk_canvas_move(self, src, dst):
        a, b = self.v / (src + ".canvas"), self.v / (dst + ".canvas")
        if a.exists() and not b.exists():
            b.parent.mkdir(parents=True, exist_ok=True)
            os.rename(a, b)

    @rule(src=names, dst=names)
    @folder_only
    def disk_attachment_move(self, src, dst):
        a, b = self.v / (src + ".png"), self.v / (dst + ".png")
        if a.exists() and not b.exists():
            b.parent.mkdir(parents=True, exist_ok=True)
            os.rename(a, b)

    # ---- brain writes through the registry (what MCP tools call) and the CLI ------------

    @rule(name=names, body=bodies)
    def op_put(self, name, body):
        self._op("put", {"slug": name, "content": body})

    @rule(name=names, tag=st.sampled_from(TAGS))
    def op_tag(self, name, tag):
        self._op("tag", {"slug": name, "tag": tag})

    @rule(name=names, date=st.sampled_from(DATES))
    def op_timeline_add(self, name, date):
        self._op("timeline-add", {"slug": name, "date": date, "summary": "added"})

    @rule(src=names, dst=names)
    def op_link(self, src, dst):
        self._op("link", {"from": src, "to": dst})

    @rule(src=names, dst=names)
    def op_unlink(self, src, dst):
        self._op("unlink", {"from": src, "to": dst})

    @rule()
    def op_relink(self):
        """links to renamed pages (a ``disk_move`` synced) pointed at their new names, in the
        body and in properties"""
        self._op("lint", {"check": "dead_links", "fix_safe": True})

    @rule(name=names, n=st.integers(0, 2))
    def op_raw(self, name, n):
        self._op("raw", {"slug": name, "source": "src" + str(n), "data": {"n": n}})

    @rule(name=names)
    def cli_delete(self, name):
        self._cli("delete", name)

    @rule(name=names, tag=st.sampled_from(TAGS))
    def cli_untag(self, name, tag):
        self._cli("untag", name, tag)

    @rule(split=st.sampled_from(["rule", "heading"]))
    def cli_timeline_split(self, split):
        self._cli("config", "set", "timeline_split", split)
        self.brain._config_cache = None

    @rule(syntax=st.sampled_from(["obsidian", "bear"]))
    def cli_tag_syntax(self, syntax):
        self._cli("config", "set", "tag_syntax", syntax)
        self.brain._config_cache = None

    @rule(syntax=st.sampled_from(["auto", "logseq", "dataview"]))
    def cli_property_syntax(self, syntax):
        self._cli("config", "set", "property_syntax", syntax)
        self.brain._config_cache = None

    # ---- embeddings -------------------------------------------------------------------

    def _texts(self) -> dict[int, tuple]:
        return {r[0]: tuple(r[1:]) for r in self.brain.conn.execute("SELECT id, title, compiled_truth, timeline FROM pages")}

    def _model(self) -> str:
        self.brain._config_cache = None
        return self.brain.get_config("embedding_model")

    def _embedded(self, model: str, ids) -> None:
        texts = self._texts()
        for i in ids:
            if i in texts:
                self.embedded[(i, model)] = texts[i]

    @rule(model=st.sampled_from(MODELS), cli=st.booleans())
    def switch_model(self, model, cli):
        if cli:
            self._cli("config", "set", "embedding_model", model)
        else:
            self._op("config-set", {"key": "embedding_model", "value": model})
        self.brain._config_cache = None

    @rule(every=st.booleans())
    def op_embed(self, every):
        if self._op("embed", {"all": True} if every else {}) is not None:
            self._embedded(self._model(), self._texts())

    @rule()
    def cli_embed(self):
        if self._cli("embed") == 0:
            self._embedded(self._model(), self._texts())

    @rule(name=names)
    def op_embed_page(self, name):
        from gbrain.operations.registry import read_slug

        try:  # the page the name resolves to (exact, case-insensitive, suffix, alias; a renamed page's old name reads its new one)
            row = self.brain.resolve_slug(read_slug(self.brain, name)[0])
        except GBrainError:
            row = None
        if self._op("embed", {"slug": name}) is not None and row:
            self._embedded(self._model(), [row["id"]])

    # ---- sync and import -------------------------------------------------------------

    @rule()
    def sync(self):
        r = ops.run("sync", {"dir": str(self.v)}, ops.Context(db=self.db))
        assert r["ok"], r["problems"]
        self.synced = True
        # after a sync the folder and the brain are equal: a fresh import of the folder itself
        # must give the same brain
        with self.stores.new(self.tmp, "check.db") as where, Brain.open(where) as fresh:
            from gbrain.sync.importer import import_tree
            from gbrain.sync.verify import derived_snapshot, embed_like, engine_snapshot

            self.brain._config_cache = None
            if self.brain.timeline_split != fresh.timeline_split:  # a brain setting, not in the tree
                fresh.set_config("timeline_split", self.brain.timeline_split)
            if self.brain.tag_syntax != fresh.tag_syntax:
                fresh.set_config("tag_syntax", self.brain.tag_syntax)
            if self.brain.property_syntax != fresh.property_syntax:
                fresh.set_config("property_syntax", self.brain.property_syntax)
            import_tree(fresh, self.v, settle=0)  # (no second look at young files: nothing writes them meanwhile)
            assert embed_like(fresh, self.brain) == []
            assert derived_snapshot(fresh) == derived_snapshot(self.brain)
            assert engine_snapshot(fresh) == engine_snapshot(self.brain)

    @rule()
    def import_(self):
        r = ops.run("import", {"dir": str(self.v)}, ops.Context(db=self.db))
        assert not r.get("read_errors"), r

    # ---- the property ------------------------------------------------------------------

    def _stored(self) -> str:
        """A digest of every row of every table of the brain's database (SQLite's FTS5 shadow
        tables, Postgres' tsvectors and totals too): what :func:`fresh_import_differences` reads
        of it (the export's bytes, the settings, every derived view) and more."""
        c = self.brain.conn
        if self.stores.pg:
            tables = [r[0] for r in c.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                                              "AND table_type = 'BASE TABLE' ORDER BY table_name")]
        else:
            tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        h = hashlib.sha256()
        for t in tables:
            h.update(repr((t, sorted((repr(tuple(r)) for r in c.execute(f'SELECT * FROM "{t}"'))))).encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    @invariant()
    def equals_fresh_import(self):
        """The brain equals a fresh import of its export: after every step that may have changed
        the brain. A step on the folder alone (``folder_only``), or one that left every row of the
        database as it was when last compared (a refused write, a tag already there), would get
        the same answer again: the comparison, a deterministic function of those rows, is not
        made again then (about 3 steps in 5)."""
        if not hasattr(self, "brain") or self.__dict__.pop("brain_untouched", False):
            return
        stored = self._stored()
        if stored == getattr(self, "compared", None):
            return
        with self.stores.new(self.tmp, "fresh.db") as where:
            diff = fresh_import_differences(self.brain, fresh_db=where)
        assert not diff, diff
        self.compared = stored

    @precondition(lambda self: hasattr(self, "brain"))
    @invariant()
    def embeddings_stale_exactly_when_their_text_changed(self):
        texts = self._texts()
        # a page whose text changed since it was embedded stays stale, even if it changes back
        self.embedded = {k: t for k, t in self.embedded.items() if texts.get(k[0]) == t}
        want = {k for k in self.embedded}
        got = {
            (r[0], r[1])
            for r in self.brain.conn.execute(
                "SELECT s.page_id, s.model FROM embed_state s JOIN pages p ON p.id = s.page_id WHERE s.content_hash = p.content_hash"
            )
        }
        assert got == want, (got - want, want - got)

    @precondition(lambda self: hasattr(self, "brain"))
    @invariant()
    def every_version_reads_back(self):
        """Every stored history body gives bytes that hash to its key (a body kept by reference
        to a page or file row too), and every file's newest version is its row's bytes."""
        from gbrain.core import history as h

        c = self.brain.conn
        for bid, hx in c.execute("SELECT id, hash FROM history_bodies").fetchall():
            assert h.hashlib_sha(h.body(c, bid)) == hx, bid
        for path, data in c.execute("SELECT path, data FROM files").fetchall():
            assert h.version_bytes(self.brain, "file", path) == bytes(data), path

    @precondition(lambda self: hasattr(self, "brain"))
    @invariant()
    def derived_rows_match_text(self):
        from gbrain.sync.verify import derived_counts

        d = derived_counts(self.brain)
        assert not d["links_resolved_differently"], d["links_resolved_differently"]
        assert not d["mismatched_pages"], d["mismatched_pages"]


def test_incremental_brain_equals_fresh_import(engine, stores):
    FreshEqual.stores = stores
    run_state_machine_as_test(FreshEqual, settings=settings(
        max_examples=PG_EXAMPLES if stores.pg else EXAMPLES,
        stateful_step_count=STEPS,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    ))


def test_delete_of_a_link_target_resolves_to_the_other_page_with_that_title(tmp_path, db_path, fresh_diff):
    """Issue 11 item 1: `ana` links [Soren](soren.md); soren.md and soren-2.md are both titled
    Soren. Deleting soren.md and syncing must point the link at soren-2 (as a fresh import
    does), and verify must stay clean."""
    v = tmp_path / "v"
    (v / "people").mkdir(parents=True)
    (v / "people/ana.md").write_text("---\ntitle: Ana\n---\nSee [Soren](soren.md).\n")
    (v / "people/soren.md").write_text("---\ntitle: Soren\n---\nS1\n")
    (v / "people/soren-2.md").write_text("---\ntitle: Soren\n---\nS2\n")
    db = str(db_path)
    assert ops.run("sync", {"dir": str(v)}, ops.Context(db=db))["ok"]
    (v / "people/soren.md").unlink()
    r = ops.run("sync", {"dir": str(v)}, ops.Context(db=db))
    assert r["ok"] and r["counts"]["trashed"] == 1, r["problems"]
    assert ops.run("verify", {"dir": str(v)}, ops.Context(db=db))["ok"]
    with Brain.open(db) as b:
        assert [x["to_slug"] for x in b.links("people/ana")] == ["people/soren-2"]
        assert fresh_diff(b) == {}


@pytest.mark.parametrize("how", ["delete", "file-becomes-blob"])
def test_removing_a_page_any_way_re_resolves_its_inbound_links(tmp_path, how, db_path, fresh_diff):
    db = str(db_path)
    with Brain.open(db) as b:
        b.put("people/ana", "See [[Soren]].\n")
        b.put("people/soren", "---\ntitle: Soren\n---\nS1\n")
        b.put("notes/zed", "---\ntitle: Soren\n---\nS2\n")
        assert [x["to_slug"] for x in b.links("people/ana")] == ["people/soren"]
        if how == "delete":
            b.delete_page("people/soren")
        else:
            v = tmp_path / "v"
            ops.run("export", {"dir": str(v)}, ops.Context(db=db))
            (v / "people/soren.md").write_bytes(b"\xff\xfe not utf-8")
            ops.run("import", {"dir": str(v)}, ops.Context(db=db))
        assert [x["to_slug"] for x in b.links("people/ana")] == ["notes/zed"]
        assert fresh_diff(b) == {}


def _fresh_pairs(b: Brain) -> set[tuple[str, str]]:
    """(slug, model) pairs whose embeddings are fresh (not stale) in ``b``."""
    from gbrain.search.vectors import select_pages

    models = [r[0] for r in b.conn.execute("SELECT DISTINCT model FROM embed_state")]
    out = set()
    slugs = {r[0]: r[1] for r in b.conn.execute("SELECT id, slug FROM pages")}
    for m in models:
        stale = {r["id"] for r in select_pages(b.conn, m, "stale")}
        out |= {(slugs[i], m) for i in slugs if i not in stale}
    return out


def test_embeddings_go_stale_when_the_text_they_were_made_from_changes(tmp_path, db_path, fresh_diff):
    """Issue 11 item 1 (embeddings' staleness): a page's chunks carry its title. A move that
    changes the title (taken from the file name) leaves the page text (content hash) equal but
    the embedded text old: the page must be stale, and after `embed` its chunks must equal what
    a fresh import + the same embed gives."""
    v = tmp_path / "v"
    (v / "people").mkdir(parents=True)
    (v / "people/ana.md").write_text("Body about Ana.\n\n---\n\n## Timeline\n\n- **2025-01-02** | x — y\n")
    db = str(db_path)
    ctx = lambda: ops.Context(db=db)  # noqa: E731
    assert ops.run("sync", {"dir": str(v)}, ctx())["ok"]
    ops.run("config-set", {"key": "embedding_model", "value": "fake-16"}, ctx())
    ops.run("embed", {}, ctx())
    with Brain.open(db) as b:
        assert _fresh_pairs(b) == {("people/ana", "fake-16")}
    os.rename(v / "people/ana.md", v / "people/bob.md")
    r = ops.run("sync", {"dir": str(v)}, ctx())
    assert r["ok"] and r["counts"]["moved"] == 1, r
    with Brain.open(db) as b:
        assert _fresh_pairs(b) == set()  # the chunks still say "ana"
        assert fresh_diff(b) == {}
    ops.run("embed", {}, ctx())
    with Brain.open(db) as b:
        assert _fresh_pairs(b) == {("people/bob", "fake-16")}
        texts = [r[0] for r in b.conn.execute("SELECT chunk_text FROM page_embeddings ORDER BY chunk_index")]
        assert texts and all(t.startswith("bob") for t in texts), texts
        assert fresh_diff(b) == {}


def test_a_page_changed_while_embed_works_stays_stale(tmp_path, db_path):
    """The chunk source check: an embed run that read a page before a move (same content hash,
    new title) must not store the old chunks as the page's fresh embedding."""
    from gbrain.search.embeddings import get_model
    from gbrain.search.vectors import embed_pages, plan_embed, select_pages

    v = tmp_path / "v"
    (v / "people").mkdir(parents=True)
    (v / "people/ana.md").write_text("Body about Ana.\n")
    db = str(db_path)
    assert ops.run("sync", {"dir": str(v)}, ops.Context(db=db))["ok"]
    with Brain.open(db) as b:
        model = get_model("fake-16")
        _, work = plan_embed(b.conn, model, select_pages(b.conn, "fake-16", "stale"))
        os.rename(v / "people/ana.md", v / "people/bob.md")
        assert ops.run("sync", {"dir": str(v)}, ops.Context(db=db))["counts"]["moved"] == 1
        embed_pages(b.conn, model, work)
        assert _fresh_pairs(b) == set()


def test_timeline_split_change_makes_embeddings_stale(tmp_path, db_path, fresh_diff):
    db = str(db_path)
    with Brain.open(db) as b:
        b.put("notes/x", "Lead text.\n\n---\n\nMore.\n\n## Timeline\n\n- **2025-01-02** | x — entry\n")
        before = b.conn.execute("SELECT timeline FROM pages").fetchone()[0]
        b.set_config("embedding_model", "fake-16")
    ops.run("embed", {}, ops.Context(db=db))
    ops.run("config-set", {"key": "timeline_split", "value": "heading"}, ops.Context(db=db))
    with Brain.open(db) as b:
        assert b.conn.execute("SELECT timeline FROM pages").fetchone()[0] != before  # the split moved
        assert _fresh_pairs(b) == set()
        assert fresh_diff(b) == {}


def test_a_frontmatter_only_edit_keeps_embeddings_fresh(tmp_path, db_path, fresh_diff):
    """Found by the state machine: tagging a page changes its bytes (content hash) but not the
    text its chunks are made from; a fresh import + the same embed has it fresh, so must we."""
    db = str(db_path)
    with Brain.open(db) as b:
        b.put("people/ana", "Body about Ana.\n")
        b.set_config("embedding_model", "fake-16")
    ops.run("embed", {}, ops.Context(db=db))
    ops.run("tag", {"slug": "people/ana", "tag": "alpha"}, ops.Context(db=db))
    with Brain.open(db) as b:
        assert _fresh_pairs(b) == {("people/ana", "fake-16")}
        assert fresh_diff(b) == {}
    ops.run("put", {"slug": "people/ana", "content": "---\ntitle: Ana\ntags: [alpha]\n---\nBody about Ana.\n"}, ops.Context(db=db))
    with Brain.open(db) as b:
        assert _fresh_pairs(b) == set()  # the title is in every chunk


@pytest.mark.parametrize("old, new", [
    ("Cafe\u0301.md", "Café.md"),  # a Mac's NFD name renamed to NFC: the path's compatibility words change
    ("notes/draft.md", "notes/Weekly Review.md"),  # a title from the file name: now equal to the H1
    ("Ｇ４ plan.md", "G4 plan.md"),  # a full-width name: its NFKC words leave search_words
    ("notes/draft.md", "会議/同期.md"),  # a CJK folder: its bigrams join search_cjk
])
def test_a_moved_page_gets_the_search_fields_its_new_path_gives(tmp_path, old, new, db_path, fresh_diff):
    """An Obsidian trial: after an NFD name was renamed to its NFC spelling, `sync` said OK but
    `verify` found the page's search fields differing from its text (the move kept the words
    derived from the old path, and the headings derived against the old title)."""
    v = tmp_path / "v"
    (v / old).parent.mkdir(parents=True, exist_ok=True)
    (v / old).write_text("# Weekly Review\n\nhello\n")
    db = str(db_path)
    assert ops.run("sync", {"dir": str(v)}, ops.Context(db=db))["ok"]
    (v / new).parent.mkdir(parents=True, exist_ok=True)
    os.rename(v / old, v / new)
    r = ops.run("sync", {"dir": str(v)}, ops.Context(db=db))
    assert r["ok"] and r["counts"]["moved"] == 1, r
    assert ops.run("verify", {"dir": str(v)}, ops.Context(db=db))["ok"]
    with Brain.open(db) as b:
        assert fresh_diff(b) == {}


@pytest.mark.engine_free
def test_postgres_own_derived_state_is_compared(tmp_path, pg_url, pg_server):
    """The comparison holds what Postgres alone derives (verify.engine_snapshot): a page's
    trigger-kept search vectors and token count, the BM25 totals, a canvas card's vector; a brain whose copy of
    them went wrong differs from a fresh import into Postgres, one that did not is equal."""
    (tmp_path / "v").mkdir()
    (tmp_path / "v/ana.md").write_text("---\ntitle: Ana\naliases: [Running Notes]\n---\nSee [[Soren|the lead]].\n")
    (tmp_path / "v/soren.md").write_text("# Soren\n\nBody.\n")
    (tmp_path / "v/map.canvas").write_bytes(CANVASES[0])
    stores = Stores("sqlite", None)
    stores.pg, stores.admin, stores.template = True, pg_server, None
    from gbrain.sync.importer import import_tree

    with Brain.open(pg_url) as b:
        import_tree(b, tmp_path / "v")
        with stores.new(tmp_path, "f") as where:
            assert fresh_import_differences(b, fresh_db=where) == {}
    for sql, view in [("UPDATE pages SET search_tsv = to_tsvector('simple', 'x') WHERE slug = 'ana'", "pg_pages pg_totals"),  # (its statement trigger counts it)
                      ("UPDATE pages SET search_names_tsv = ''::tsvector WHERE slug = 'soren'", "pg_pages"),
                      ("UPDATE pages SET search_len = search_len + 1 WHERE slug = 'soren'", "pg_pages pg_totals"),  # v59: BM25's page length (tokens)
                      ("INSERT INTO search_stats_part (pages, lexemes) VALUES (0, 1)", "pg_totals"),
                      ("ALTER TABLE canvas_cards DISABLE TRIGGER canvas_cards_tsv; UPDATE canvas_cards SET tsv = ''::tsvector; "
                       "ALTER TABLE canvas_cards ENABLE TRIGGER canvas_cards_tsv", "pg_cards")]:
        with stores.new(tmp_path, "b") as db, Brain.open(db) as b:  # each fault in a brain of its own
            import_tree(b, tmp_path / "v")
            with b.transaction():
                for one in sql.split("; "):
                    b.conn.execute(one)
            with stores.new(tmp_path, "f") as where:
                assert set(fresh_import_differences(b, fresh_db=where)) == set(view.split()), sql


def test_a_plain_fresh_import_differences_imports_into_the_brains_own_engine(tmp_path, db_path, engine):
    """The other test files call ``fresh_import_differences(b)`` with no ``fresh_db``: under
    ``--engine postgres`` that fresh import is a new Postgres database too (tests/conftest.py sets
    ``verify.FRESH_STORE``: ``fresh_store``), so a Postgres-only derived value gone wrong (here
    BM25's page length, ``search_len``) fails them; on SQLite it is a SQLite file, the default."""
    from gbrain.sync import verify
    from gbrain.sync.importer import import_tree

    (tmp_path / "v").mkdir()
    (tmp_path / "v/ana.md").write_text("# Ana\n\nBody text.\n")
    with Brain.open(str(db_path)) as b:
        import_tree(b, tmp_path / "v")
        assert fresh_import_differences(b) == {}
        with verify.FRESH_STORE(b, tmp_path) as where:
            assert str(where).startswith("postgresql://") == (engine == "postgres")
        if engine != "postgres":
            return
        with b.transaction():
            b.conn.execute("UPDATE pages SET search_len = search_len + 1")
        assert set(fresh_import_differences(b)) == {"pg_pages", "pg_totals"}


def test_moves_label_and_alias_changes_and_deletes_equal_a_fresh_import(tmp_path, db_path, fresh_diff):
    """The state machine's Postgres run draws few examples: these steps run on both engines every
    time, each synced and compared with a fresh import of the run's engine (Postgres: its
    trigger-kept vectors and BM25 totals too)."""
    v = tmp_path / "v"
    (v / "people").mkdir(parents=True)
    (v / "people/ana.md").write_text("---\ntitle: Ana\naliases: [Running Notes]\n---\nSee [[Soren|the lead]] and [S](soren.md).\n")
    (v / "people/soren.md").write_text("---\ntitle: Soren\n---\nS1 [[Ana]]\n")
    (v / "notes").mkdir()
    (v / "notes/log.md").write_text("# Log\n\nRuns [[Running Notes]].\n")
    db = str(db_path)
    steps = [
        lambda: (v / "people/ana.md").write_text("---\ntitle: Ana\naliases: [Running Notes]\n---\nSee [[Soren|the boss]] and [Sor](soren.md).\n"),
        lambda: (v / "people/ana.md").write_text("---\ntitle: Ana\naliases: [Walking Notes, Logbook]\n---\nSee [[Soren]] and [Sor](soren.md).\n"),
        lambda: os.rename(v / "people/soren.md", v / "notes/soren.md"),
        lambda: os.rename(v / "people/ana.md", v / "people/anna.md"),
        lambda: ops.run("lint", {"check": "dead_links", "fix_safe": True}, ops.Context(db=db)),
        lambda: ops.run("link", {"from": "notes/log", "to": "notes/soren"}, ops.Context(db=db)),
        lambda: ops.run("delete", {"slug": "notes/soren"}, ops.Context(db=db)),
        lambda: (v / "people/anna.md").unlink(),
    ]
    assert ops.run("sync", {"dir": str(v)}, ops.Context(db=db))["ok"]
    for i, step in enumerate(steps):
        step()
        assert ops.run("sync", {"dir": str(v)}, ops.Context(db=db))["ok"], i
        with Brain.open(db) as b:
            assert fresh_diff(b) == {}, i
    with Brain.open(db) as b:
        assert [r[0] for r in b.conn.execute("SELECT slug FROM pages ORDER BY slug")] == ["notes/log"]
