"""Creating a page computes no "did you mean" names (a helper's measure: one `ingest` of a new
source took 6.5–7.8 s on a 20,000-page brain, nearly all of it the fuzzy match over every page's
name for a NotFound that `put` then caught and threw away)."""
from __future__ import annotations

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import NotFound


def test_put_and_ingest_of_new_pages_do_not_suggest_but_a_miss_still_does(db_path, monkeypatch):
    with Brain.open(db_path) as b:
        ops.run("put", {"slug": "people/ana-lima", "content": "# Ana Lima\n"}, ops.Context(surface="cli"), brain=b)
        calls = []
        real = Brain.suggest
        monkeypatch.setattr(Brain, "suggest", lambda self, slug, n=5, **kw: calls.append(slug) or real(self, slug, n, **kw))
        ops.run("put", {"slug": "people/bo-new", "content": "# Bo\n"}, ops.Context(surface="cli"), brain=b)
        ops.run("put", {"slug": "notes/part-new", "compiled_truth": "A new page from a part.\n"}, ops.Context(surface="mcp"), brain=b)
        ops.run("ingest", {"content": "# Call with Bo\n\nAbout Ana.\n", "source_type": "meeting", "source_ref": "meet/1"}, ops.Context(surface="cli"), brain=b)
        assert calls == []
        with pytest.raises(NotFound) as e:  # a read of a name no page has still suggests
            ops.run("get", {"slug": "people/ana-lma"}, ops.Context(surface="cli"), brain=b)
        assert calls and "people/ana-lima" in e.value.suggestions
