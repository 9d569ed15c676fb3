"""Trial 71: the README says an Obsidian vault that uses `---` as a plain rule needs
`gbrain config set timeline_split heading` before the first timeline write, but nothing told a
person whether their vault is one (obsidian-hub: 24 notes have a `---` above text with headings
and no timeline entry). The import now says so once, naming a page, when it added such pages
under the default `timeline_split rule`; nothing when the pages have real timelines, when the
setting is chosen, or when nothing new was imported."""
from __future__ import annotations

from conftest import gbrain

from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree

HINT = "timeline_split heading"
RULE = "# Plugin notes\n\nIntro.\n\n---\n\n## Settings\n\nMore text below a plain rule.\n"
TIMELINE = "# Ana\n\nState.\n\n---\n\n- **2025-03-04** | meeting — Pitched.\n"


def write(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def test_an_import_of_pages_with_a_plain_rule_says_the_setting_once(tmp_path, db_path):
    tree = write(tmp_path / "vault", {"a.md": RULE, "b/c.md": RULE, "people/ana.md": TIMELINE})
    said: list[str] = []
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree, on_warning=said.append)
        hints = [w for w in said if HINT in w]
        assert len(hints) == 1 and "a.md" in hints[0] and "1 more" in hints[0], said
        said.clear()
        import_tree(b, tree, on_warning=said.append)  # nothing new: said no more
        assert not [w for w in said if HINT in w], said


def test_no_hint_for_real_timelines_or_a_chosen_setting(tmp_path, db_path):
    tree = write(tmp_path / "brain", {"people/ana.md": TIMELINE, "x.md": "# X\n\nNo rule.\n"})
    said: list[str] = []
    with Brain.open(db_path, create=True) as b:
        import_tree(b, tree, on_warning=said.append)
    assert not [w for w in said if HINT in w], said
    tree2 = write(tmp_path / "vault", {"a.md": RULE})
    with Brain.open(tmp_path / "other.db", create=True) as b:
        b.set_config("timeline_split", "heading")
        import_tree(b, tree2, on_warning=said.append)
    assert not [w for w in said if HINT in w], said


def test_the_cli_says_it_on_stderr_and_the_import_is_ok(tmp_path, db_path):
    tree = write(tmp_path / "vault", {"a.md": RULE})
    r = gbrain("import", str(tree), "--db", str(db_path))
    assert r.returncode == 0 and b"Validation: OK" in r.stdout, r.stderr.decode()
    assert len([ln for ln in r.stderr.decode().splitlines() if HINT in ln]) == 1, r.stderr.decode()
