"""An incremental brain always equals a fresh import of its own tree.

Whatever sequence of disk edits, moves, deletes, CLI writes, registry (MCP-level) writes, syncs
and imports happened, every derived view (pages, titles, tags, links and where they resolve,
timeline entries, raw rows, files, the FTS index) equals what importing the exported tree into
a new database gives. A hypothesis rule-based state machine drives random sequences; CI runs a
bounded number of examples, ``GBRAIN_STATEFUL_EXAMPLES=500`` runs more.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import GBrainError
from gbrain.sync.verify import fresh_import_differences

EXAMPLES = int(os.environ.get("GBRAIN_STATEFUL_EXAMPLES", "12"))
STEPS = int(os.environ.get("GBRAIN_STATEFUL_STEPS", "25"))

# a few names in two folders, so titles, file names and relative paths collide
NAMES = ["people/ana", "people/soren", "people/soren-2", "notes/soren", "notes/log-1", "Soren"]
TITLES = [None, "Soren", "Ana", "Log 1"]
LINKS = ["[S](soren.md)", "[[Soren]]", "[[Ana]]", "[a](../people/ana.md)", "[[people/soren-2]]", "[x](/notes/soren.md)", "![[soren]]"]
TAGS = ["alpha", "beta"]
DATES = ["2025-01-02", "2025-03-04"]

bodies = st.builds(
    lambda title, links, tags, tl: (
        (("---\n" + (f"title: {title}\n" if title else "") + (f"tags: [{', '.join(tags)}]\n" if tags else "") + "---\n") if (title or tags) else "")
        + "Body " + " ".join(links) + "\n"
        + ("\n---\n\nMore text.\n" if len(links) == 2 else "")
        + ("\n---\n\n## Timeline\n\n" + "".join(f"- **{d}** | note — entry {i}\n" for i, d in enumerate(tl)) if tl else "")
    ),
    st.sampled_from(TITLES),
    st.lists(st.sampled_from(LINKS), max_size=3),
    st.lists(st.sampled_from(TAGS), max_size=2, unique=True),
    st.lists(st.sampled_from(DATES), max_size=2),
)
names = st.sampled_from(NAMES)


def sidecar(name: str) -> str:
    d, _, n = name.rpartition("/")
    return (d + "/" if d else "") + ".raw/" + n + ".json"


class FreshEqual(RuleBasedStateMachine):
    """State: a folder ``v`` bound to ``b.db``. Rules change either side; invariants compare."""

    @initialize(start=st.lists(st.tuples(names, bodies), max_size=4))
    def setup(self, start):
        self.tmp = Path(tempfile.mkdtemp(prefix="gbrain-sm-"))
        self.v = self.tmp / "v"
        self.v.mkdir()
        self.db = str(self.tmp / "b.db")
        for name, body in start:
            self._write(name, body)
        self.brain = Brain.open(self.db)
        self.synced = False
        self.sync()

    def teardown(self):
        if hasattr(self, "brain"):
            self.brain.close()
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
    def disk_write(self, name, body):
        self._write(name, body)

    @rule(name=names)
    def disk_delete(self, name):
        p = self.v / (name + ".md")
        if p.exists():
            p.unlink()

    @rule(src=names, dst=names)
    def disk_move(self, src, dst):
        a, b = self.v / (src + ".md"), self.v / (dst + ".md")
        if a.exists() and not b.exists():
            b.parent.mkdir(parents=True, exist_ok=True)
            os.rename(a, b)

    @rule(name=names, n=st.integers(0, 2))
    def disk_sidecar(self, name, n):
        p = self.v / sidecar(name)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"sources": {"s" + str(i): {"v": i} for i in range(n)}}), encoding="utf-8")

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

    # ---- sync and import -------------------------------------------------------------

    @rule()
    def sync(self):
        r = ops.run("sync", {"dir": str(self.v)}, ops.Context(db=self.db))
        assert r["ok"], r["problems"]
        self.synced = True
        # after a sync the folder and the brain are equal: a fresh import of the folder itself
        # must give the same brain
        with Brain.open(self.tmp / "check.db") as fresh:
            from gbrain.sync.importer import import_tree
            from gbrain.sync.verify import derived_snapshot

            self.brain._config_cache = None
            if self.brain.timeline_split != fresh.timeline_split:  # a brain setting, not in the tree
                fresh.set_config("timeline_split", self.brain.timeline_split)
            import_tree(fresh, self.v)
            assert derived_snapshot(fresh) == derived_snapshot(self.brain)
        os.unlink(self.tmp / "check.db")

    @rule()
    def import_(self):
        r = ops.run("import", {"dir": str(self.v)}, ops.Context(db=self.db))
        assert not r.get("read_errors"), r

    # ---- the property ------------------------------------------------------------------

    @invariant()
    def equals_fresh_import(self):
        if not hasattr(self, "brain"):
            return
        diff = fresh_import_differences(self.brain)
        assert not diff, diff

    @precondition(lambda self: hasattr(self, "brain"))
    @invariant()
    def derived_rows_match_text(self):
        from gbrain.sync.verify import derived_counts

        d = derived_counts(self.brain)
        assert not d["links_resolved_differently"], d["links_resolved_differently"]
        assert not d["mismatched_pages"], d["mismatched_pages"]


FreshEqual.TestCase.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_incremental_brain_equals_fresh_import = FreshEqual.TestCase


def test_delete_of_a_link_target_resolves_to_the_other_page_with_that_title(tmp_path):
    """Issue 11 item 1: `ana` links [Soren](soren.md); soren.md and soren-2.md are both titled
    Soren. Deleting soren.md and syncing must point the link at soren-2 (as a fresh import
    does), and verify must stay clean."""
    v = tmp_path / "v"
    (v / "people").mkdir(parents=True)
    (v / "people/ana.md").write_text("---\ntitle: Ana\n---\nSee [Soren](soren.md).\n")
    (v / "people/soren.md").write_text("---\ntitle: Soren\n---\nS1\n")
    (v / "people/soren-2.md").write_text("---\ntitle: Soren\n---\nS2\n")
    db = str(tmp_path / "b.db")
    assert ops.run("sync", {"dir": str(v)}, ops.Context(db=db))["ok"]
    (v / "people/soren.md").unlink()
    r = ops.run("sync", {"dir": str(v)}, ops.Context(db=db))
    assert r["ok"] and r["counts"]["trashed"] == 1, r["problems"]
    assert ops.run("verify", {"dir": str(v)}, ops.Context(db=db))["ok"]
    with Brain.open(db) as b:
        assert [x["to_slug"] for x in b.links("people/ana")] == ["people/soren-2"]
        assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("how", ["delete", "file-becomes-blob"])
def test_removing_a_page_any_way_re_resolves_its_inbound_links(tmp_path, how):
    db = str(tmp_path / "b.db")
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
        assert fresh_import_differences(b) == {}
