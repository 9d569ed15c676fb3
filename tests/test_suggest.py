"""did-you-mean: a close misspelling of a page's file name, or the name in another case or
without its accents, suggests that page, also where several folders hold the same name."""
from __future__ import annotations

from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.errors import NotFound
from gbrain.sync.importer import import_tree


def _vault(root: Path) -> Path:
    pages = {
        "en/Plugins/Canvas.md": "# Canvas\n", "de/Erweiterungen/Canvas.md": "# Canvas\n", "fr/Modules/Canvas.md": "# Canvas\n",
        "ja/プラグイン/Canvas.md": "# Canvas\n", "ko/플러그인/Canvas.md": "# Canvas\n", "es/Complementos/Canvas.md": "# Canvas\n",
        "en/Plugins/Canvases of old.md": "# x\n", "en/Café culture.md": "# Café\n", "en/Plugins/Graph view.md": "# Graph\n",
    }
    for rel, text in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def miss(b: Brain, name: str) -> list[str]:
    with pytest.raises(NotFound) as e:
        b.resolve_slug(name)
    return e.value.suggestions


@pytest.mark.parametrize("typo", ["canvs", "Canvs", "cnavas", "CANVAS-X", "Cånvas"])
def test_a_misspelt_file_name_suggests_every_page_of_that_name(tmp_path, db_path, typo):
    with Brain.open(db_path) as b:
        import_tree(b, _vault(tmp_path / "v"))
        got = miss(b, typo)
        assert "en/Plugins/Canvas" in got and "de/Erweiterungen/Canvas" in got, got
        for name in got:
            b.resolve_slug(name)


def test_accents_and_case_do_not_hide_a_name(tmp_path, db_path):
    with Brain.open(db_path) as b:
        import_tree(b, _vault(tmp_path / "v"))
        assert miss(b, "cafe-culture")[0] == "en/Café culture"
        assert miss(b, "GRAF view")[0] == "en/Plugins/Graph view"


def test_obsidian_help_canvs_suggests_the_canvas_plugin(tmp_path, db_path):
    from conftest import SHARED

    vault = SHARED / "corpora" / "obsidian-help"
    if not vault.is_dir():
        pytest.skip("the obsidian-help corpus is not here")
    import shutil

    tree = tmp_path / "help"
    for lang in ("en", "fr"):  # two languages: a name several folders hold, at half the import
        shutil.copytree(vault / lang, tree / lang)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        got = miss(b, "canvs")
        assert "en/Plugins/Canvas" in got and "fr/Modules/Canvas" in got, got


def test_a_name_as_a_wiki_link_writes_it_finds_the_page(tmp_path, db_path):
    """The TypeScript agent trial: `brain_get {"slug": "Claude Code"}` (the page's title, as
    `[[Claude Code]]` links to it) was "no page", with entities/claude-code the first near name.
    A bare name finds the page a wiki link of that name resolves to (the slugified file name,
    then the title, then an alias written another way), when one page has it; several: Ambiguous."""
    from gbrain.errors import Ambiguous

    root = tmp_path / "v"
    for rel, text in {"entities/claude-code.md": "---\ntitle: Claude Code\n---\n# Claude Code\n",
                      "people/ana.md": "---\ntitle: Ana Lima (founder)\n---\n# Ana\n",
                      "a/notes.md": "# Weekly Notes\n", "b/weekly.md": "---\ntitle: Weekly Notes\n---\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    with Brain.open(db_path) as b:
        import_tree(b, root)
        assert b.resolve_slug("Claude Code")["slug"] == "entities/claude-code"
        assert b.resolve_slug("claude code")["slug"] == "entities/claude-code"
        assert b.resolve_slug("Ana Lima (founder)")["slug"] == "people/ana"
        with pytest.raises(Ambiguous) as e:
            b.resolve_slug("Weekly Notes")
        assert e.value.suggestions == ["a/notes", "b/weekly"], e.value.suggestions
        assert miss(b, "Claude")  # a part of a name is no name: still a miss
        assert b.resolve_for_write("Claude Code") is None  # put still names a new page as given


def test_a_deleted_page_is_said_deleted_and_look_alikes_are_no_suggestion(tmp_path, db_path):
    """Trial 38: `get "Thomas Becker"` after the note was deleted suggested
    `ai-game-devtools/storymaker` (difflib's ratio alone): only real near misses are suggested,
    and a near miss of a deleted page's name says it is in the trash, with the restore command."""
    root = tmp_path / "v"
    for rel, text in {"ai-game-devtools/storymaker.md": "# StoryMaker\n", "people/Alice Smith.md": "# A. Smith\n",
                      "people/Thomas Becker.md": "# Thomas Becker\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    with Brain.open(db_path) as b:
        import_tree(b, root)
        b.delete_page("people/Thomas Becker")
        for asked in ("Thomas Becker", "people/Thomas Becker", "Thomas Beker", "Tomas Becker"):
            with pytest.raises(NotFound) as e:
                b.resolve_slug(asked)
            assert e.value.suggestions == [], (asked, str(e.value))
            assert "people/Thomas Becker" in str(e.value) or "it was deleted" in str(e.value), str(e.value)
            assert "in the trash" in str(e.value) and "gbrain restore 'people/Thomas Becker'" in str(e.value), str(e.value)
        assert miss(b, "storymakr") == ["ai-game-devtools/storymaker"]
        assert miss(b, "people/alice") == ["people/Alice Smith"]
        with pytest.raises(NotFound) as e:
            b.resolve_slug("Tom Baker")
        assert e.value.suggestions == [] and "trash" not in str(e.value), str(e.value)


def test_a_name_with_a_folder_suggests_that_folders_pages_first(db_path):
    """did-you-mean listed near names of every folder in difflib's order of the whole path, so a
    look-alike in another folder (`notes/bob-smyth`) came before the page of the very file name
    that moved (`archive/people/bob-smith`), and another folder's near name before the asked
    folder's own. Now the asked folder's pages and those of the same file name come first."""
    with Brain.open(db_path) as b:
        for s in ("companies/bob", "notes/bob-smyth", "archive/people/bob-smith", "archive/people/rob-smith", "notes/smith",
                  "people/mario-lopez-garcia", "deals/mario-lopes", "people/maria-lopez"):
            b.put(s, "# x\n")
        got = miss(b, "companies/bob-smith")
        assert got[:2] == ["companies/bob", "archive/people/bob-smith"] and "notes/bob-smyth" in got[2:], got
        got = miss(b, "people/mario-lopez")
        assert set(got[:2]) == {"people/maria-lopez", "people/mario-lopez-garcia"} and "deals/mario-lopes" in got[2:], got
        assert miss(b, "bob-smyht")[0] == "notes/bob-smyth"  # a bare name: no folder to prefer


def test_a_miss_names_only_trashed_pages_spelled_near_it_after_the_did_you_mean(db_path):
    """Trial 48: `get people/ana-yilmas` first named an unrelated trashed page
    (`meetings/2026-12-05-ana-yilmaz-sync`: its file name's words hold the asked ones) before the
    right did-you-mean. The trash note names only a deleted page spelled near the asked name (a few
    letters off, its path or its file name), and comes after the did-you-mean."""
    with Brain.open(db_path) as b:
        for s in ("people/ana-yilmaz", "meetings/2026-12-05-ana-yilmaz-sync", "people/ana-yilmak"):
            b.put(s, "# x\n")
        b.delete_page("meetings/2026-12-05-ana-yilmaz-sync")
        with pytest.raises(NotFound) as e:
            b.resolve_slug("people/ana-yilmas")
        msg = str(e.value)
        assert e.value.suggestions[0] == "people/ana-yilmaz", msg
        assert "meetings/2026-12-05-ana-yilmaz-sync" not in msg and "trash" not in msg, msg
        b.delete_page("people/ana-yilmak")
        with pytest.raises(NotFound) as e:
            b.resolve_slug("people/ana-yilmas")
        msg = str(e.value)
        assert msg.startswith("no page 'people/ana-yilmas'; did you mean: people/ana-yilmaz"), msg
        assert "people/ana-yilmak was deleted on" in msg and "sync" not in msg, msg


def test_a_deleted_pages_suggestions_are_pages_each_named_once(tmp_path, db_path):
    """Trial 59: `get 'en/Getting started/Download and install Obsidian'` after a delete said it
    is in the trash, then `did you mean: getting-started/download-and-install-obsidian,
    ar/بدء الاستخدام/تنزيل وتثبيت Obsidian`: the first is no page but an alias of the second (the
    translation names its original's path), which looked like the deleted page's own name
    slugified; the same page was suggested twice. Each suggestion is a page that exists, named
    once; for a deleted page by its page name (an alias near the deleted page's name names
    another page: here its translation)."""
    root = tmp_path / "v"
    for rel, text in {
        "en/Getting started/Download and install Obsidian.md": "---\npermalink: install\n---\nDownload it.\n",
        "ar/بدء الاستخدام/تنزيل وتثبيت Obsidian.md": "---\npermalink: install\naliases:\n  - getting-started/download-and-install-obsidian\n"
                                                 "  - Download and install Obsidian\n---\nنزّله.\n",
        "en/Getting started/Update Obsidian.md": "---\naliases:\n  - Installer version update\n---\nUpdate it.\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    gone, ar = "en/Getting started/Download and install Obsidian", "ar/بدء الاستخدام/تنزيل وتثبيت Obsidian"
    with Brain.open(db_path) as b:
        import_tree(b, root)
        b.delete_page(gone)
        with pytest.raises(NotFound) as e:
            b.resolve_slug(gone)
        said = str(e.value)
        assert "it was deleted on" in said and f"gbrain restore '{gone}'" in said, said
        assert "getting-started/download-and-install-obsidian" not in said, said
        got = e.value.suggestions
        assert got == [ar], got  # a page, by its name
        # a near miss of the deleted page's name: the same
        with pytest.raises(NotFound) as e:
            b.resolve_slug("en/getting-started/download-and-install-obsidian")
        said = str(e.value)
        assert e.value.suggestions == [ar] and f"gbrain restore '{gone}'" in said, said
        assert "getting-started/download-and-install-obsidian;" not in said, said
        # a live page's miss keeps suggesting an alias that names its page, once per page
        got = miss(b, "Installer version updte")
        assert got == ["Installer version update"], got
        got = miss(b, "Download and instal Obsidian")  # near the deleted page's name too: pages only
        assert got == [ar], got
