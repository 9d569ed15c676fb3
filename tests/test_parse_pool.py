"""The import's parse pool (``gbrain/sync/parallel.py``) gives every derived view exactly as
parsing in the importing process does: the same tree imported with the pool forced on (two
forkserver workers, from the second page) and with it off gives equal ``derived_snapshot``s and
the same report."""
import shutil

import pytest

from conftest import CORPORA, FIXTURE_BRAIN, make_brain
from gbrain.core.brain import Brain
from gbrain.sync import importer, parallel
from gbrain.sync.verify import derived_snapshot

pytestmark = pytest.mark.engine_free  # the pool is the same on both engines: the SQLite run only (conftest)

EDGE_PAGES = {
    "edge/bom.md": "\ufeff---\ntitle: With a BOM\ntags: [a, B]\n---\n# Body\n\nSee [[people/ana-lima]].\n",
    "edge/crlf.md": "---\r\ntitle: CRLF\r\n---\r\nText with #inline-tag and [x](../people/ana-lima.md).\r\n\r\n---\r\n\r\n- **2025-01-02** | note — An entry\r\n",
    "edge/bad-yaml.md": "---\ntitle: [unclosed\n---\nBody [[Nowhere]].\n",
    "edge/recursive.md": "---\ntitle: &a [*a]\n---\nBody.\n",
    "edge/property.md": '---\nrelated: "[[people/ana-lima]]"\naliases: [Edge Prop, ep]\n---\n# Property\n\n```\n[[not a link]]\n```\n',
    "edge/timeline.md": "# T\n\nText.\n\n---\n\n- **2024-05-06** | call — First\n  detail line\n- **2024-05-07** | email — Second\n",
    "edge/cjk.md": "# データ同期\n\n日本語の本文 [[データ]] #タグ\n",
    "edge/empty.md": "",
}


def tree(tmp_path):
    """fixtures/brain, a make_brain brain of 300 pages, obsidian-help when present, and the
    edge pages above (BOM, CRLF, bad and recursive YAML, property links, timeline, CJK, empty)."""
    root = tmp_path / "tree"
    shutil.copytree(FIXTURE_BRAIN, root)
    make_brain(root / "made", 300)
    if (CORPORA / "obsidian-help").is_dir():
        shutil.copytree(CORPORA / "obsidian-help", root / "help")
    for rel, text in EDGE_PAGES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode("utf-8"))
    return root


def import_with(root, db, pool: bool, monkeypatch):
    used = []

    class Spy(parallel.PageParser):
        def __init__(self):
            super().__init__(workers=2)

        def parse(self, jobs):
            out = super().parse(jobs)
            used.append(self.pool is not None)
            return out

    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2 if pool else 10**9)
    monkeypatch.setattr(importer, "PageParser", Spy)
    warned = []
    with Brain.open(db) as b:
        rep = importer.import_tree(b, root, on_warning=warned.append)
        snap = derived_snapshot(b)
    assert used and all(u == pool for u in used), used  # the pool ran (or did not) as asked
    return rep, snap, warned


def test_pool_on_and_off_give_the_same_derived_views(tmp_path, monkeypatch):
    root = tree(tmp_path)
    rep_on, on, warned_on = import_with(root, tmp_path / "on.db", True, monkeypatch)
    rep_off, off, warned_off = import_with(root, tmp_path / "off.db", False, monkeypatch)
    assert rep_on["ok"] and rep_off["ok"]
    assert rep_on["counts"]["pages_written"] > 500
    assert sorted(on) == sorted(off)
    for view in off:
        assert on[view] == off[view], view
    assert warned_on == warned_off
    for k in ("counts", "links", "problems"):
        if k in rep_off:
            assert rep_on[k] == rep_off[k], k
