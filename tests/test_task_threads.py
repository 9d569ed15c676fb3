"""`threads` lists open task-list items (`- [ ] …`, `* [ ]`, `1. [ ]`) anywhere in a page as open
threads, with their page and line, beside the items of `## Open Threads` sections (trial 38: a
consultant's meeting-note to-dos were invisible to the briefing's "waiting on someone").
Read by the page model's parser: not `- [x]`, not in fenced code or `%%` comments. Both engines."""
from __future__ import annotations

import json

import pytest

from conftest import gbrain_in_process
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.page.markdown import open_tasks
from gbrain.sync.importer import import_tree

MEETING = """---
title: Kickoff with Acme
type: meeting
---
# Kickoff with Acme

Notes.

## Action items
- [ ] Send the proposal to [[Maria Santos]] by 2025-03-01
- [x] Book the room
* [ ] Waiting on Acme's security questionnaire
1. [ ] Ask legal about the NDA
   still pending

```
- [ ] a task inside code is no task
```

%%
- [ ] nor in a comment
%%

> - [ ] quoted follow-up

---

- parent
  - [ ] nested after a rule
"""

PERSON = """# Ana

## Open Threads
- [ ] Intro to Bruno (2025-02-20)
- Undated idea
"""


def _brain(tmp_path, db):
    tree = tmp_path / "tree"
    for rel, text in {"meetings/kickoff.md": MEETING, "people/ana.md": PERSON, "notes/plain.md": "# Plain\n\n- a list\n"}.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text, encoding="utf-8")
    with Brain.open(db) as b:
        import_tree(b, tree)
    return db


@pytest.mark.engine_free
def test_open_tasks_come_from_the_parser():
    assert open_tasks("- [ ] a\n\n```\n- [ ] b\n```\n- [x] c\n    - [ ] d\n") == [(0, "a"), (6, "d")]
    assert open_tasks("    - [ ] indented code\n") == []
    assert open_tasks("- [ ]\n- [ ] [[Bob]] call\n") == [(1, "[[Bob]] call")]


def test_threads_lists_open_tasks_with_page_and_line(tmp_path, db_path):
    db = _brain(tmp_path, db_path)
    r = ops.run("threads", {"as_of": "2025-03-10"}, ops.Context(db=str(db)))
    got = [(t["slug"], t["line"], t["text"], t["date"], t["done"]) for t in r]
    assert got == [
        ("people/ana", 4, "Intro to Bruno (2025-02-20)", "2025-02-20", False),  # an Open Threads task counted once
        ("meetings/kickoff", 10, "Send the proposal to [[Maria Santos]] by 2025-03-01", "2025-03-01", False),
        ("meetings/kickoff", 12, "Waiting on Acme's security questionnaire", None, False),
        ("meetings/kickoff", 13, "Ask legal about the NDA still pending", None, False),
        ("meetings/kickoff", 24, "quoted follow-up", None, False),
        ("meetings/kickoff", 29, "nested after a rule", None, False),
        ("people/ana", 5, "Undated idea", None, False),
    ]
    lines = MEETING.split("\n")
    assert all("[ ]" in lines[t["line"] - 1] for t in r if t["slug"] == "meetings/kickoff")
    assert [t["line"] for t in ops.run("threads", {"as_of": "2025-03-10", "type": "meeting", "dated": True}, ops.Context(db=str(db)))] == [10]
    p = gbrain_in_process("threads", "--as-of", "2025-03-10", "--json", "--db", str(db))
    assert p.returncode == 0 and json.loads(p.stdout) == r
    # an edit ticks one and adds one: read from the text as it is now
    with Brain.open(db) as b:
        b.put("meetings/kickoff", MEETING.replace("- [ ] Send the proposal", "- [x] Send the proposal").replace("Notes.", "Notes.\n- [ ] New one"))
    r2 = ops.run("threads", {"as_of": "2025-03-10", "type": "meeting"}, ops.Context(db=str(db)))
    assert [(t["line"], t["text"]) for t in r2][:2] == [(8, "New one"), (13, "Waiting on Acme's security questionnaire")]
    # the lint's open_threads check stays about Open Threads sections
    lr = ops.run("lint", {"check": "open_threads", "as_of": "2025-03-10"}, ops.Context(db=str(db)))
    assert {f["slug"] for f in lr["items"]} <= {"people/ana"}
