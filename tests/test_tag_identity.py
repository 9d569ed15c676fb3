"""A tag's identity is Obsidian's: its Help ("Tags": "Tags are case-insensitive. For example, #tag
and #TAG will be treated as identical") and the JavaScript it runs lowercase a tag with
``toLowerCase()``, which Python's ``str.lower()`` spells (final sigma in context too:
``'ΣΑΣ'.toLowerCase()`` is ``'σας'``). gbrain keyed tags by ``str.casefold()``, which also folds
``ß``→``ss``, ligatures (``ﬁ``→``fi``), ``ς``→``σ``, Cherokee small letters… (297 characters where
the two differ): ``#ß-tag`` and ``#SS-tag`` were one tag to gbrain, two to Obsidian. Now
:func:`gbrain.page.slugs.tag_identity` (NFC, then ``lower()``) keys every tag comparison; a brain
stored before (SQLite v64 / Postgres v68) gets its pages holding such a character re-derived
(SQLite v65 / Postgres v69), as a fresh import."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import unicodedata

import pytest

from conftest import write_tree, writable_by_this_gbrain
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.page import slugs
from gbrain.page.markdown import parse_page
from gbrain.page.slugs import tag_identity
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

NFD = unicodedata.normalize("NFD", "économie")


@pytest.mark.engine_free
def test_tag_identity_is_nfc_then_lowercase():
    assert tag_identity("ß-tag") != tag_identity("SS-tag") == tag_identity("ss-tag") == "ss-tag"
    assert tag_identity("Tag") == tag_identity("tag") == tag_identity("TAG") == "tag"
    assert tag_identity(NFD) == tag_identity("économie") == tag_identity("Économie")
    assert tag_identity("ﬁle") != tag_identity("file")
    assert tag_identity("ΣΑΣ") == "σας" != tag_identity("σασ")  # JS: final sigma in context
    assert tag_identity("ΑΣ/sub") == "ας/sub" and tag_identity("ΑΣ") == "ας"  # a parent's key prefixes its nested tag's
    assert tag_identity("İ") == "i\u0307"


@pytest.mark.engine_free
@pytest.mark.skipif(shutil.which("node") is None, reason="no node to compare with JavaScript's toLowerCase")
def test_tag_identity_lowercases_as_javascript_does(tmp_path):
    """Every character Python's Unicode database assigns, and sigma in contexts, lowercase as
    node's ``toLowerCase()`` does (characters a later Unicode added are left to the version)."""
    chars = [chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000 and unicodedata.category(chr(i)) != "Cn"]
    samples = chars + ["ΣΑΣ", "ΑΣ/x", "ΑΣ-b", "ΑΣ_b", "Α.Σ", "ΑΣ\u0301", "ΑΣ\u0301Β", "ΑΣ1", "1Σ", "aΣ", "ΑΣa", "ΑΣ\u00ad"]
    (tmp_path / "in.json").write_text(json.dumps(samples))
    js = "const fs=require('fs');fs.writeFileSync(process.argv[2],JSON.stringify(JSON.parse(fs.readFileSync(process.argv[1],'utf8')).map(s=>s.toLowerCase())))"
    subprocess.run(["node", "-e", js, str(tmp_path / "in.json"), str(tmp_path / "out.json")], check=True)
    want = json.loads((tmp_path / "out.json").read_text())
    differ = [(s, w) for s, w in zip(samples, want) if unicodedata.normalize("NFC", s).lower() != unicodedata.normalize("NFC", w)
              and unicodedata.normalize("NFC", w) == w]  # (a character NFC changes is compared composed)
    assert differ == [], differ[:10]


@pytest.mark.engine_free
def test_a_page_keeps_tags_obsidian_tells_apart():
    p = parse_page("---\ntags: [ß-tag]\n---\nx #SS-tag #ss-tag #Tag #tag #ﬁle #file\n")
    assert p.all_tags == ["ß-tag", "SS-tag", "Tag", "ﬁle", "file"]


TREE = {
    "a.md": "---\ntags: [ß-tag]\n---\nx\n",
    "b.md": "y #SS-tag\n",
    "c.md": "z #Tag\n",
    "d.md": "w #tag\n",
    "e.md": f"---\ntags: [{NFD}]\n---\nv\n",
    "f.md": "u #économie\n",
    "g.md": "---\ntags: [σας]\n---\n",
    "h.md": "t #ΣΑΣ #σασ\n",
}


def _tags(b) -> dict:
    return {t["tag"]: (t["pages"], t["spellings"]) for t in ops.run("tags", {}, ops.Context(), brain=b)}


def test_tags_obsidian_tells_apart_are_listed_apart(tmp_path, db_path):
    write_tree(tmp_path / "v", TREE)
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        assert _tags(b) == {
            # (a tie goes to the spelling in its normalised form, lint's canonical one: slugs.tag_spelling_rank)
            "σας": (2, {"σας": 1, "ΣΑΣ": 1}), "économie": (2, {"économie": 1, NFD: 1}), "tag": (2, {"tag": 1, "Tag": 1}),
            "SS-tag": (1, {"SS-tag": 1}), "ß-tag": (1, {"ß-tag": 1}), "σασ": (1, {"σασ": 1})}
        # stats counts tags as the listing does: one per identity, not per spelling
        assert ops.run("stats", {}, ops.Context(), brain=b)["unique_tags"] == len(_tags(b)) == 6
        listed = lambda tag: sorted(r["slug"] for r in ops.run("list", {"tag": tag}, ops.Context(), brain=b))  # noqa: E731
        assert listed("ß-tag") == ["a"] and listed("ss-tag") == ["b"] and listed("TAG") == ["c", "d"] and listed("Économie") == ["e", "f"]
        assert listed("ΣΑΣ") == ["g", "h"]
        # lint's tag_duplicates still names tags that look like one (two to Obsidian, as yc_alum / yc-alum)
        dup = {tuple(f["variants"]) for f in ops.run("lint", {"check": "tag_duplicates"}, ops.Context(), brain=b)["findings"] if f["check"] == "tag_duplicates"}
        assert ("SS-tag", "ß-tag") in dup and ("ΣΑΣ", "σας", "σασ") in dup, dup
        found = ops.run("search", {"query": "y", "tag": "SS-TAG"}, ops.Context(), brain=b)
        assert [r["slug"] for r in found] == ["b"]
        # tag: a twin of another identity is another tag, written as given; one of this identity follows the brain
        r = ops.run("tag", {"slug": "b", "tag": "ß-tag"}, ops.Context(), brain=b)
        assert r["changed"] and "note" not in r and b.tags("b") == ["ß-tag", "SS-tag"], r
        r = ops.run("tag", {"slug": "a", "tag": "SS-TAG"}, ops.Context(), brain=b)
        assert r["changed"] and "'SS-tag'" in r["note"] and b.tags("a") == ["ß-tag", "SS-tag"], r
        # untag removes that identity only
        r = ops.run("untag", {"slug": "a", "tag": "ss-tag"}, ops.Context(), brain=b)
        assert r["changed"] and b.tags("a") == ["ß-tag"], r
        assert fresh_import_differences(b) == {}


@pytest.mark.pg_empty  # made at the schema before by this test, not a copy of a migrated brain
def test_a_brain_keyed_by_casefold_upgrades_to_a_fresh_imports_tags(db_path, tmp_path, monkeypatch):
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    tree = {**TREE,
            "i.md": "---\ntags: [SS-tag]\n---\nlater #ß-tag\n",  # the row kept is not the special one
            "j.md": "tags:: ﬁle, file\n\nlogseq graph page\n",
            "logseq/config.edn": "{}\n",
            "pages/k.md": "tags:: ﬁle, file\n\n- #ΣΑΣ and #σασ\n",
            "l.md": "Straße without tags\n",
            "m.md": "# ascii #only\n",
            # a YAML escape: the text is ASCII (or holds no such letter), the tag holds one
            "n.md": '---\ntags: ["\\xdf-tag", SS-tag]\n---\nn\n',
            "o.md": '---\ntitle: Café\ntags:\n  - "\\u03a3\\u0391\\u03a3"\n  - σασ\n---\no\n'}
    write_tree(tmp_path / "v", tree)
    old = lambda name: slugs.nfc(name).casefold()  # noqa: E731 (the identity before)
    with monkeypatch.context() as m:
        m.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:64])
        m.setattr(dbmod, "SCHEMA_VERSION", 64)
        m.setattr(pg, "PG_SCHEMA_VERSION", 68)
        for mod in list(sys.modules.values()):
            if getattr(mod, "tag_identity", None) is tag_identity:
                m.setattr(mod, "tag_identity", old)
        with Brain.open(db_path, create=True) as b:
            writable_by_this_gbrain(b.conn)
            assert import_tree(b, tmp_path / "v")["ok"]
            assert b.tags("i") == ["SS-tag"]  # (one row: ß-tag was its twin)
            ascii_rows = b.conn.execute("SELECT t.id FROM tags t JOIN pages p ON p.id = t.page_id WHERE p.slug = 'm'").fetchall()
    with Brain.open(db_path) as b:
        assert b.tags("i") == ["SS-tag", "ß-tag"]
        assert _tags(b)["ß-tag"] == (3, {"ß-tag": 3})
        assert b.conn.execute("SELECT t.id FROM tags t JOIN pages p ON p.id = t.page_id WHERE p.slug = 'm'").fetchall() == ascii_rows  # untouched
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_the_upgrade_selects_every_page_whose_tags_can_change():
    from gbrain.storage.db import tag_identity_may_change

    assert tag_identity_may_change("---\ntags: [Straße]\n---\n")
    assert tag_identity_may_change("x #straße y\n") and tag_identity_may_change("x #ΑΣ\n")
    assert tag_identity_may_change("tags:: ﬁle\n") and tag_identity_may_change("Tags: Stra\u00dfe\n")
    assert tag_identity_may_change(unicodedata.normalize("NFD", "x #ΐ\n"))  # (ΐ composed casefolds apart)
    assert not tag_identity_may_change("Straße without a tag on its line\n#tag\n")
    assert not tag_identity_may_change("#économie #Tag\n")
    # a YAML escape in the frontmatter spells one in ASCII (a double-quoted \\x, \\u, \\U)
    assert tag_identity_may_change('---\ntags: ["Stra\\u00dfe"]\n---\n') and tag_identity_may_change('---\ntags: "\\xDF"\n---\n')
    assert tag_identity_may_change('---\ntitle: Café\ntags: ["\\U000003A3\\u0391\\u03a3"]\n---\n')
    assert not tag_identity_may_change('x\n\n---\n\n#tag "\\u00df"\n')  # (no YAML in the body)


def test_the_upgrade_reads_the_tagged_pages_in_batches_and_misses_none(db_path, tmp_path, monkeypatch):
    """The upgrade reads the tagged pages' texts 500 at a time (Postgres' cursor holds a whole
    answer in memory: every tagged page's text at once on a 50,000-page brain) and still picks
    each page that may change, first batch or last."""
    from gbrain.storage import db as dbmod

    tree = {f"p{i:04d}.md": f"page {i} #plain\n" for i in range(1203)}
    for i in (3, 499, 500, 501, 1002, 1202):
        tree[f"p{i:04d}.md"] = f"page {i} #Straße\n"
    write_tree(tmp_path / "v", tree)
    reads, picked = [], []
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, tmp_path / "v")["ok"]
        conn = b.conn

        class Counting:  # counts the rows each statement hands back
            dialect = getattr(conn, "dialect", "sqlite")

            def execute(self, sql, params=()):
                rows = conn.execute(sql, params).fetchall()
                if "frontmatter_raw" in sql:
                    reads.append(len(rows))
                return _Rows(rows)

        monkeypatch.setattr(dbmod, "rederive_page_ids", lambda c, ids, **kw: picked.extend(ids) or len(ids))
        assert dbmod.rederive_tag_identity_pages(Counting()) == 6
        slugs_of = dict(conn.execute("SELECT id, slug FROM pages").fetchall())
    assert sorted(slugs_of[i] for i in picked) == [f"p{i:04d}" for i in (3, 499, 500, 501, 1002, 1202)]
    assert max(reads) <= 500 and sum(reads) == 1203


class _Rows(list):
    def fetchall(self):
        return list(self)

    def fetchone(self):
        return self[0] if self else None


def _dups(b, **kw) -> dict:
    r = ops.run("lint", {"check": "tag_duplicates", **kw}, ops.Context(), brain=b)
    return r, {tuple(sorted(f["variants"])): f for f in r["items"] if f["check"] == "tag_duplicates"}


def test_lint_fix_never_merges_tags_that_only_look_alike(tmp_path, db_path):
    """Trial 53: `ß-fm`, `SS-fm`, `ss-fm` are two tags (Obsidian's identity); lint called them "one tag
    spelled 3 ways" and lint-fix rewrote the ß page to `ss-fm`, changing which tag it has. Lookalikes
    (a casefold letter apart: ß/ss, ﬁ/fi) are reported as such, a person's choice; the safe fix merges
    spellings of one identity only."""
    write_tree(tmp_path / "v", {"g1.md": "---\ntags: [ß-fm]\n---\n# G\n", "g2.md": "---\ntags: [SS-fm]\n---\n# G\n",
                                "g3.md": "---\ntags: [ss-fm]\n---\n# G\n", "f1.md": "---\ntags: [ﬁle]\n---\n# F\n",
                                "f2.md": "---\ntags: [file]\n---\n# F\n"})
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        _, dup = _dups(b)
        for f in dup.values():
            assert not f["message"].startswith("one tag") and "look alike" in f["message"], f
            assert f["needs_choice"] is True and f["canonical"] is None, f
        assert "--fix-safe" not in dup[("file", "ﬁle")]["action"]
        assert "--fix-safe" in dup[("SS-fm", "ss-fm", "ß-fm")]["action"]  # SS-fm → ss-fm is one tag
        r, _ = _dups(b, fix_safe=True)
        assert [(f["slug"], f["from"], f["to"]) for f in r["fixed"]] == [("g2", ["SS-fm"], ["ss-fm"])], r["fixed"]
        assert b.get_text("g1") == "---\ntags: [ß-fm]\n---\n# G\n" and b.get_text("f1") == "---\ntags: [ﬁle]\n---\n# F\n"
        _, dup = _dups(b)
        assert set(dup) == {("ss-fm", "ß-fm"), ("file", "ﬁle")} and all("--fix-safe" not in f["action"] for f in dup.values()), dup
        assert _dups(b, fix_safe=True)[0]["fixed"] == []


def test_lint_promises_no_fix_for_a_spelling_written_only_in_the_text(tmp_path, db_path):
    """Trial 53: for `#SS-tag` written in a page's text, lint said `--fix-safe` renames it, yet lint-fix
    (which edits the tags property only) changed nothing and said nothing."""
    write_tree(tmp_path / "v", {"a.md": "x #SS-tag\n", "b.md": "---\ntags: [ss-tag]\n---\ny\n", "c.md": "---\ntags: [ss-tag]\n---\nz\n",
                                "d.md": "---\ntags: [yc_alum]\n---\nw\n", "e.md": "v #yc_alum\n", "f.md": "---\ntags: [yc-alum]\n---\nu\n",
                                "g.md": "---\ntags: [yc-alum]\n---\nt\n"})
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        _, dup = _dups(b)
        ss, yc = dup[("SS-tag", "ss-tag")], dup[("yc-alum", "yc_alum")]
        assert "--fix-safe" not in ss["action"] and "by hand" in ss["action"] and "text of a " in ss["action"], ss
        assert "--fix-safe" in yc["action"] and "by hand" in yc["action"] and "text of e " in yc["action"], yc
        r, _ = _dups(b, fix_safe=True)
        assert [f["slug"] for f in r["fixed"]] == ["d"]
        _, dup = _dups(b)
        assert all("--fix-safe" not in f["action"] for f in dup.values()), dup


def test_lint_text_gives_the_action_of_a_persons_choice_and_of_a_conflict_copy(tmp_path, db_path):
    """Trial 53: `gbrain lint` text printed each finding's message but never its action, so tags
    that only look alike (needs_choice) and conflict copies (merge advice) gave a terminal no
    advice (`--json` and `gbrain conflicts` had it): their action is an indented line under them;
    other findings stay one line (the whole-brain output is not doubled)."""
    from gbrain.core.lint import render_text

    write_tree(tmp_path / "v", {"g1.md": "---\ntags: [ß-fm]\n---\n# G\n", "g2.md": "---\ntags: [ss-fm]\n---\n# G\n",
                                "c.md": "# C\n", "c (conflicted copy 2026-12-01).md": "# C2\n", "o.md": "[[nowhere]]\n"})
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        r = ops.run("lint", {}, ops.Context(), brain=b)
        text = render_text(r).splitlines()
        by = {f["check"]: f for f in r["items"]}
        for check in ("tag_duplicates", "conflicts"):
            f = by[check]
            i = next(i for i, ln in enumerate(text) if ln.endswith(f["message"]))
            assert text[i + 1] == f"    → {f['action']}", (check, text[i:i + 2])
        f = by["dead_links"]
        assert f["action"] not in "\n".join(text) and not f.get("needs_choice"), f
