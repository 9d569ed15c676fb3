"""graph with a type filter shows how each kept page is reached (a trial's briefing step)."""
from __future__ import annotations

from conftest import gbrain, write_tree

from gbrain import operations as ops
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)


def test_graph_with_a_type_keeps_the_chain_that_reaches_each_page(tmp_path):
    """A trial: ``graph people/priya --depth 2 --type company`` (person → deal → company) listed no
    page in its text and no edge in its JSON (edges were kept only between two pages of the
    type), so the briefing skill's "how we know them" came out empty. Now the company names the
    pages between (``via``) and the edges hold that chain's links with their contexts."""
    root = write_tree(tmp_path / "g", {
        "people/priya.md": "---\ntype: person\n---\n# Priya\n\nWorks on [Deal X](../deals/x.md).\n",
        "deals/x.md": "---\ntype: deal\n---\n# Deal X\n\nFor [Acme](../companies/acme.md).\n",
        "companies/acme.md": "---\ntype: company\n---\n# Acme\n\nA company.\n",
        "companies/beta.md": "---\ntype: company\n---\n# Beta\n\nPriya advises [Priya](../people/priya.md).\n",
    })
    db = str(tmp_path / "g.db")
    assert gbrain("--db", db, "import", str(root)).returncode == 0
    r = ops.run("graph", {"slug": "people/priya", "depth": 2, "type": "company"}, ops.Context(db=db))
    assert [(n["slug"], n["distance"], n.get("via")) for n in r["nodes"]] == [
        ("people/priya", 0, None), ("companies/beta", 1, None), ("companies/acme", 2, ["deals/x"])]
    assert [(e["from"], e["to"], e["context"]) for e in r["edges"]] == [
        ("companies/beta", "people/priya", "Priya advises Priya."),
        ("deals/x", "companies/acme", "For Acme."),
        ("people/priya", "deals/x", "Works on Deal X."),
    ]
    out = gbrain("--db", db, "graph", "people/priya", "--depth", "2", "--type", "company").stdout.decode()
    assert "companies/acme  (company, 2 hops, via deals/x)" in out and "companies/beta  (company, 1 hop)" in out
    assert "people/priya → deals/x  — Works on Deal X." in out
    # without a filter nothing is hidden and no page needs a chain spelled out but the far one
    r = ops.run("graph", {"slug": "people/priya", "depth": 2}, ops.Context(db=db))
    assert {n["slug"] for n in r["nodes"]} == {"people/priya", "deals/x", "companies/acme", "companies/beta"}
