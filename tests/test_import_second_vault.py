"""Importing a second, different vault into a brain that holds another folder's notes (trial 71):
a path both have keeps the brain's version, and the summary line gave as its first reason "edited
through gbrain since the last import", which did not apply. It now says the reason that does."""
from __future__ import annotations

from conftest import gbrain_in_process as gbrain


def _tree(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def test_a_second_vaults_clash_is_said_as_another_folders_page(tmp_path, db_path):
    a = _tree(tmp_path / "hub", {"SOURCE.md": "# Source\n\nthe hub's\n", "hub-only.md": "# Hub\n"})
    b = _tree(tmp_path / "help", {"SOURCE.md": "# Source\n\nthe help vault's\n", "help-only.md": "# Help\n"})
    assert gbrain("--db", str(db_path), "import", str(a)).returncode == 0
    r = gbrain("--db", str(db_path), "import", str(b))
    out = r.stdout.decode()
    line = next(l for l in out.splitlines() if l.startswith("Kept the brain's version"))
    assert "another folder" in line and "edited through gbrain" not in line, line


def test_a_brain_edit_is_still_said_as_an_edit(tmp_path, db_path):
    a = _tree(tmp_path / "notes", {"ana.md": "# Ana\n\nfirst\n"})
    assert gbrain("--db", str(db_path), "import", str(a)).returncode == 0
    assert gbrain("--db", str(db_path), "tag", "ana", "friend").returncode == 0
    out = gbrain("--db", str(db_path), "import", str(a)).stdout.decode()
    line = next(l for l in out.splitlines() if l.startswith("Kept the brain's version"))
    assert "edited through gbrain" in line and "another folder" not in line, line
