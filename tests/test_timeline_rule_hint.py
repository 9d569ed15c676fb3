"""`timeline-add` on an Obsidian note that uses `---` as a plain rule between sections (the
llm-wiki trial: concepts/opencode-improvements has 11 `---`-separated `## …` sections): with the
default `timeline_split rule` everything below the first `---` is the page's "timeline", so the
entry went after the last section with no word of why. The write still happens (as documented),
and its note now says that the `---` looks like a plain rule and names `timeline_split heading`;
a page with a real timeline (or an empty one) gets no note."""
from __future__ import annotations

from gbrain.core.brain import Brain
from gbrain.operations import registry as ops

RULED = ("---\ntitle: Plan\n---\n\n# Plan\n\nIntro.\n\n---\n\n## 1. Memory\n\nText one.\n\n---\n\n## 2. Agents\n\nText two.\n")


def test_a_rule_that_reads_as_the_separator_is_named_in_the_note(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("notes/plan", RULED)
        b.put("people/ana", "# Ana\n\nIntro.\n\n---\n\n- **2024-01-01** | met\n")
        b.put("people/bo", "# Bo\n\nIntro.\n")
        r = ops.run("timeline-add", {"slug": "notes/plan", "date": "2026-12-03", "summary": "tried it"}, brain=b)
        assert r["changed"] and "timeline_split heading" in r.get("note", ""), r
        assert "## 1. Memory" in r["note"]
        for slug in ("people/ana", "people/bo"):
            r = ops.run("timeline-add", {"slug": slug, "date": "2026-12-03", "summary": "x"}, brain=b)
            assert r["changed"] and not r.get("note"), r
        # with the heading split the rule is no separator: no note
        b.set_config("timeline_split", "heading")
        r = ops.run("timeline-add", {"slug": "notes/plan", "date": "2026-12-04", "summary": "again"}, brain=b)
        assert r["changed"] and not r.get("note"), r


def test_put_timeline_append_names_the_rule_as_timeline_add_does(db_path):
    """Trial 30: `put --timeline-append` (the README's first-hour way to add an entry) on such a
    note wrote the entry at its end with no word, where `timeline-add` on the same note says why
    (llm-wiki's ai-game-devtools/moshi); now both carry the same note, and a note with a timeline
    or with none gets none."""
    with Brain.open(db_path, create=True) as b:
        b.put("notes/plan", RULED)
        b.put("people/ana", "# Ana\n\nIntro.\n\n---\n\n- **2024-01-01** | met\n")
        b.put("people/bo", "# Bo\n\nIntro.\n")
        r = ops.run("put", {"slug": "notes/plan", "timeline_append": "- **2026-12-03** | tried it"}, brain=b)
        assert r["changed"] and "timeline_split heading" in r.get("note", ""), r
        assert "## 1. Memory" in r["note"]
        assert b.get_text("notes/plan").endswith("Text two.\n\n- **2026-12-03** | tried it\n")
        for slug in ("people/ana", "people/bo"):
            r = ops.run("put", {"slug": slug, "timeline_append": "- **2026-12-03** | x"}, brain=b)
            assert r["changed"] and not r.get("note"), r
        b.set_config("timeline_split", "heading")
        r = ops.run("put", {"slug": "notes/plan", "timeline_append": "- **2026-12-04** | again"}, brain=b)
        assert r["changed"] and not r.get("note"), r


def test_config_set_timeline_split_says_which_entries_it_stops_reading(db_path):
    """Trial s59 (llm-wiki): `timeline-add` on a checklist note before `config set timeline_split
    heading` (the note's `---` is a plain rule; the add said so) wrote its entry at the end; the
    setting then made `timeline` answer "(no timeline entries)" for that note, and the next add
    began a `## Timeline` section below the old entry, with no word from `config set`. The text
    is kept, as it must be; the setting now says how many entries in which pages it no longer
    reads as timeline entries, and says nothing when it changes none."""
    with Brain.open(db_path, create=True) as b:
        b.put("notes/plan", RULED)
        assert ops.run("timeline-add", {"slug": "notes/plan", "date": "2026-12-03", "summary": "tried it"}, brain=b)["changed"]
        b.put("people/ana", "# Ana\n\nIntro.\n\n---\n\n## Timeline\n\n- **2024-01-01** | met\n")  # read either way
        said: list[str] = []
        assert ops.run("config-set", {"key": "timeline_split", "value": "heading"}, ops.Context(on_warning=said.append), brain=b)
        assert len(said) == 1 and "1 timeline entry" in said[0] and "notes/plan" in said[0] and "people/ana" not in said[0], said
        assert b.timeline("notes/plan") == [] and len(b.timeline("people/ana")) == 1  # the text kept, read as the setting says
        said.clear()
        ops.run("config-set", {"key": "timeline_split", "value": "rule"}, ops.Context(on_warning=said.append), brain=b)
        assert said == [] and len(b.timeline("notes/plan")) == 1  # back: nothing lost, nothing said
