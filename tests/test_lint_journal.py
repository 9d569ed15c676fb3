"""Lint on a daily-journal Obsidian vault (trial17): what a template is made of is no problem to fix.

A Templater template (``<% tp.date.now("YYYY-MM-DD", -1) %>``) or a core template (``{{date}}``,
``{{title}}``) writes placeholders where the note it makes will have a name: a link to one can
never be made to resolve (it names the note of the day the template runs), and two templates that
both open with ``# {{title}}`` are no two notes sharing a title."""
from __future__ import annotations

from pathlib import Path

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree

pytestmark = pytest.mark.engine_free

DAILY_TEMPLATE = """---
tags: [journal/daily]
---
# <% tp.date.now("YYYY-MM-DD") %>

<< [[<% tp.date.now("YYYY-MM-DD", -1) %>]] | [[<% tp.date.now("YYYY-MM-DD", 1) %>]] >>

Review [[{{date:gggg-[W]ww}}]] and [[Morning pages]], and [[Not written yet]].
"""
PAGES = {
    "Templates/Daily.md": DAILY_TEMPLATE,
    "Templates/Meeting.md": "# {{title}}\n\nDate:: {{date}}\nWith [[{{attendee}}]]\n",
    "Templates/Person.md": "# {{title}}\n\nMet:: {{date}}\n",
    "Morning pages.md": "# Morning pages\n\nA habit.\n",
    "Journal/2026-11-28.md": "# 2026-11-28\n\n[[Morning pages]]\n",
    "Journal/Other 2026-11-28.md": "# 2026-11-28\n\nA second note with that title.\n",
}


def _lint(tmp_path: Path, check: str) -> list[dict]:
    root = tmp_path / "vault"
    for rel, text in PAGES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    db = tmp_path / "brain.db"
    if not db.exists():
        with Brain.open(db) as b:
            assert import_tree(b, root)["ok"]
    return ops.run("lint", {"check": check, "as_of": "2026-12-04"}, ops.Context(db=str(db)))["items"]


def test_a_link_to_a_template_placeholder_is_no_dead_link(tmp_path):
    got = sorted((f["slug"], f["target"]) for f in _lint(tmp_path, "dead_links"))
    # the real dead link of a template is still told; the placeholders are not
    assert got == [("Templates/Daily", "Not written yet")]


def test_templates_titled_by_the_same_placeholder_are_no_duplicate_titles(tmp_path):
    got = [(f["title"], f["pages"]) for f in _lint(tmp_path, "duplicate_titles")]
    # two real notes with one title are still told
    assert got == [("2026-11-28", ["Journal/2026-11-28", "Journal/Other 2026-11-28"])]
