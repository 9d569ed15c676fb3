"""A `git pull` / `merge` / `rebase` / `stash pop` that conflicts leaves git's markers
(`<<<<<<<`, `=======`, `>>>>>>>`) in the note. gbrain stores the text as it is (the page format
is a bijection), but the page means something else then: the other side's compiled truth can
land in the timeline, `Text` over `=======` is a setext heading (the title), and frontmatter
split by markers does not load. sync, watch, import and put warn naming the file and line, and
`gbrain lint` lists the page (check `conflict_markers`) until the conflict is resolved.
"""
from __future__ import annotations

import json

import pytest

from gbrain.page.markdown import conflict_marker_line, parse_page
from tests.conftest import gbrain_in_process

BODY_CONFLICT = """---
title: Alpha
tags: [one]
---

# Alpha

<<<<<<< HEAD
Intro line main.

---

- **2026-03-03** | main entry
=======
Intro line other.

---

- **2026-02-02** | other entry
>>>>>>> other
- **2026-01-01** | start
"""

FM_CONFLICT = """---
title: Alpha
<<<<<<< HEAD
tags: [one, mine]
=======
tags: [one, other]
>>>>>>> other
---

Body.
"""

# a note that explains git conflicts, in a fenced block: no conflict
IN_CODE = """# Resolving conflicts

```
<<<<<<< HEAD
mine
=======
theirs
>>>>>>> other
```
"""


@pytest.mark.engine_free
@pytest.mark.parametrize("text, line", [
    (BODY_CONFLICT, 8),
    (FM_CONFLICT, 3),
    (BODY_CONFLICT.replace("\n", "\r\n"), 8),  # core.autocrlf=true
    ("<<<<<<< HEAD\nAlpha main\n||||||| base\nAlpha\n=======\nAlpha other\n>>>>>>> b\n", 1),  # diff3 style, at the top
    ("<<<<<<< Updated upstream\na\n=======\nb\n>>>>>>> Stashed changes", 1),  # git stash pop, no final newline
    (IN_CODE, None),
    ("Title\n=======\n\nbody\n", None),  # a setext heading alone
    ("<<<<<<< HEAD\nonly an opener\n", None),
    ("a\n>>>>>>> x\n=======\n<<<<<<< y\n", None),  # out of order
    ("<<<<<<<< eight\na\n=======\nb\n>>>>>>> x\n", None),  # eight: no marker
    ("", None),
])
def test_conflict_marker_line(text, line):
    assert conflict_marker_line(text) == line
    page = parse_page(text, "a.md")
    assert page.render() == text  # stored as it is
    said = [w for w in page.warnings if "merge conflict" in w]
    assert len(said) == (line is not None) and all(f"line {line}" in w for w in said), page.warnings


def test_sync_warns_and_lint_lists_a_page_left_in_conflict(synced):
    brain, eng, tree = synced
    (tree / "notes").mkdir(exist_ok=True)
    (tree / "notes" / "alpha.md").write_text(BODY_CONFLICT, encoding="utf-8")
    (tree / "notes" / "beta.md").write_text(FM_CONFLICT, encoding="utf-8")
    (tree / "notes" / "howto.md").write_text(IN_CODE, encoding="utf-8")
    rep = eng.sync()
    said = [w for w in rep["warnings"] if "merge conflict" in w]
    assert len(said) == 2, rep["warnings"]
    assert any(w.startswith("notes/alpha.md: ") and "line 8" in w for w in said), said
    assert any(w.startswith("notes/beta.md: ") and "line 3" in w for w in said), said
    db = str(brain.path)
    p = gbrain_in_process("--db", db, "lint", "--check", "conflict_markers", "--json")
    r = json.loads(p.stdout)
    assert p.returncode == 1 and r["counts"] == {"conflict_markers": 2}, r
    by = {f["slug"]: f for f in r["items"]}
    assert set(by) == {"notes/alpha", "notes/beta"} and by["notes/alpha"]["line"] == 8 and by["notes/beta"]["line"] == 3
    assert all(f["check"] == "conflict_markers" and f["message"] and f["action"] for f in r["items"])
    # on by default, and in the text report
    p = gbrain_in_process("--db", db, "lint", "--slug", "notes/")
    assert "conflict_markers: 2" in p.stdout.decode() and "notes/alpha" in p.stdout.decode()
    # resolved in the file: the next sync says nothing and lint is clean
    (tree / "notes" / "alpha.md").write_text(BODY_CONFLICT.split("<<<<<<<")[0] + "Intro line main.\n", encoding="utf-8")
    (tree / "notes" / "beta.md").write_text(FM_CONFLICT.replace("<<<<<<< HEAD\n", "").split("=======\n")[0] + "---\n\nBody.\n", encoding="utf-8")
    rep = eng.sync()
    assert not [w for w in rep["warnings"] if "merge conflict" in w], rep["warnings"]
    r = json.loads(gbrain_in_process("--db", db, "lint", "--check", "conflict_markers", "--json").stdout)
    assert r["counts"] == {"conflict_markers": 0} and r["ok"], r


def test_put_of_a_text_in_conflict_warns(db_path):
    p = gbrain_in_process("--db", str(db_path), "put", "notes/alpha", "--json", input=BODY_CONFLICT)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert any("merge conflict" in w and "line 8" in w for w in out.get("warnings") or []), out
