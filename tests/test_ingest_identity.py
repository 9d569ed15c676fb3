"""What names a source (a cron user's trial): a ``source_ref`` (given, or the file's path) is one
source page whatever the day, the same text through any surface finds the same page, and
``call``/``pipe`` take ingest's ``file`` and ``call`` its parameters from standard input."""
from __future__ import annotations

import json

from conftest import gbrain, gbrain_in_process
from test_surfaces import j, pipe


def _log_rows(b) -> list:
    return [tuple(r) for r in b.conn.execute("SELECT source_ref, pages_updated FROM ingest_log WHERE source_type <> 'import' ORDER BY id").fetchall()]


def test_a_source_ref_names_one_page_whatever_the_day(db_path, monkeypatch):
    from gbrain import operations as ops
    from gbrain.core.brain import Brain
    from gbrain.operations import agents

    monkeypatch.setattr(agents, "_today", lambda: "2026-12-02")
    with Brain.open(db_path, create=True) as b:
        first = ops.run("ingest", {"content": "Standup: nothing new.\n", "source_type": "meeting", "source_ref": "standup"}, brain=b)
        monkeypatch.setattr(agents, "_today", lambda: "2026-12-03")
        again = ops.run("ingest", {"content": "Standup: nothing new.\n", "source_type": "meeting", "source_ref": "standup"}, brain=b)
        assert again["slug"] == first["slug"] and not again["created"] and not again["changed"] and not again["logged"]
        # a changed text with the same ref updates that page; the old text stays in its history
        changed = ops.run("ingest", {"content": "Standup: Ana lends the GPUs.\n", "source_type": "meeting", "source_ref": "standup"}, brain=b)
        assert changed["slug"] == first["slug"] and not changed["created"] and changed["changed"] and changed["logged"]
        text = b.get_text(first["slug"])
        assert text.endswith("Standup: Ana lends the GPUs.\n") and "source_ref: standup" in text and "ingested: 2026-12-03" in text
        assert [p["slug"] for p in ops.run("list", {"type": "source"}, brain=b)] == [first["slug"]]
        hist = ops.run("history", {"slug": first["slug"]}, brain=b)
        assert len(hist["versions"]) == 2
        # the same changed text again: nothing written, nothing logged
        same = ops.run("ingest", {"content": "Standup: Ana lends the GPUs.\n", "source_type": "meeting", "source_ref": "standup"}, brain=b)
        assert same["slug"] == first["slug"] and not same["changed"] and not same["logged"]
        assert _log_rows(b) == [("standup", json.dumps([first["slug"]])), ("standup", json.dumps([first["slug"]]))]
        # another ref with the same title is another source
        other = ops.run("ingest", {"content": "Standup: nothing new.\n", "source_type": "meeting", "source_ref": "standup-b"}, brain=b)
        assert other["slug"] != first["slug"] and other["created"]


def test_the_same_text_through_the_cli_and_call_finds_one_page(tmp_path, db_path):
    run = gbrain_in_process  # in-process: about the page each surface finds, not the process
    db = str(db_path)
    f = tmp_path / "m1.txt"
    f.write_text("Meeting with Ana Yilmaz about GPU lending\n\nShe lends two.\n", encoding="utf-8")
    cli = j(run("--db", db, "ingest", str(f), "--type", "meeting", "--json"))
    via_call = j(run("--db", db, "call", "ingest", json.dumps({"content": f.read_text(encoding="utf-8"), "source_type": "meeting"})))
    via_file = j(run("--db", db, "call", "ingest", json.dumps({"file": str(f), "source_type": "meeting"})))
    assert cli["slug"].endswith("-meeting-with-ana-yilmaz-about-gpu-lending") and cli["created"]
    assert via_call["slug"] == via_file["slug"] == cli["slug"] and not via_call["changed"] and not via_file["changed"]
    # the file changed: the same path (its ref) updates the page
    f.write_text("Meeting with Ana Yilmaz about GPU lending\n\nShe lends three.\n", encoding="utf-8")
    upd = j(run("--db", db, "ingest", str(f), "--type", "meeting", "--json"))
    assert upd["slug"] == cli["slug"] and upd["changed"] and upd["logged"]
    assert j(run("--db", db, "stats", "--json"))["ingest_log"] == 2


def test_call_and_pipe_take_ingest_file_and_mcp_keeps_content(tmp_path, db_path):
    from gbrain import operations as ops

    db = str(db_path)
    f = tmp_path / "good.txt"
    f.write_text("# Good\n\nText.\n", encoding="utf-8")
    r = j(gbrain("--db", db, "call", "ingest", json.dumps({"file": str(f)})))
    assert r["slug"].endswith("-good") and r["created"]
    (line,) = pipe(db, [{"id": 1, "tool": "brain_ingest", "params": {"file": str(f)}}])
    assert line["ok"] and line["result"]["slug"] == r["slug"] and not line["result"]["created"]
    # neither: the parameter agents must give is named
    bad = gbrain("--db", db, "call", "ingest", "{}")
    assert bad.returncode == 2 and b"missing required parameter 'content'" in bad.stderr
    assert ops.REGISTRY["ingest"].input_schema()["required"] == ["content"]  # MCP: the server reads no files for an agent


def test_call_reads_its_parameters_from_stdin_given_dash(db_path):
    db = str(db_path)
    big = "# Big\n\n" + ("word " * 40_000) + "\n"  # 200 KB: over the shell's argument limit
    r = j(gbrain("--db", db, "call", "brain_put", "-", input=json.dumps({"slug": "notes/big", "content": big})))
    assert r["slug"] == "notes/big"
    assert j(gbrain("--db", db, "call", "brain_get", "-", input='{"slug": "notes/big"}'))["content"] == big
    bad = gbrain("--db", db, "call", "brain_get", "-", input="not json")
    assert bad.returncode == 2 and b"not valid JSON" in bad.stderr


def test_call_without_parameters_says_how_to_pipe_them(db_path):
    """`echo '{…}' | gbrain call brain_put` read nothing and said only "missing 'slug'": standard
    input is still not read without `-` (a `while read` loop's input is nobody's parameters), but
    the error says how."""
    r = gbrain("--db", str(db_path), "call", "brain_put", input='{"slug": "a", "content": "x"}')
    assert r.returncode == 2 and b"missing required parameter 'slug'" in r.stderr and b"gbrain call brain_put -" in r.stderr
    assert j(gbrain("--db", str(db_path), "call", "brain_put", '{"slug": "a", "content": "x\\n"}', input="ignored"))["slug"] == "a"


def _plan(b, ref: str) -> str:
    """The query plan of ingest's lookup of ``ref`` (SQLite's EXPLAIN QUERY PLAN, Postgres's EXPLAIN)."""
    from gbrain.storage.db import is_postgres, source_ref_sql

    sql = f"SELECT slug, frontmatter FROM pages WHERE slug LIKE 'sources/%' AND {source_ref_sql(b.conn)} = ? ORDER BY id"
    if is_postgres(b.conn):
        b.conn.execute("SET enable_seqscan = off")  # a few rows: the planner would scan them anyway
        try:
            return "\n".join(r[0] for r in b.conn.execute("EXPLAIN " + sql, (ref,)).fetchall())
        finally:
            b.conn.execute("SET enable_seqscan = on")
    return "\n".join(str(tuple(r)) for r in b.conn.execute("EXPLAIN QUERY PLAN " + sql, (ref,)).fetchall())


def test_a_source_is_found_by_the_index_of_refs_not_by_reading_every_source_page(db_path, monkeypatch):
    """Ingest's lookup of a ref read the frontmatter of every page under sources/ (O(pages) per
    ingest: 2,000 sources on a 20,000-page brain, docs/performance.md). It goes through an index
    of the sources' refs now (v20), on both engines; refs that are numbers in a document's own
    frontmatter are still found (as text), other pages' refs are not sources."""
    from gbrain import operations as ops
    from gbrain.core.brain import Brain
    from gbrain.operations import agents

    monkeypatch.setattr(agents, "_today", lambda: "2026-12-02")
    with Brain.open(db_path, create=True) as b:
        for i in range(30):
            ops.run("ingest", {"content": f"Note {i}.\n", "source_ref": f"ref-{i}"}, brain=b)
        b.put("people/ana", "---\nsource_ref: ref-7\n---\n# Ana\n")  # no source page
        numbered = ops.run("ingest", {"content": "---\nsource_ref: 12345\ntitle: Numbered\n---\nText.\n", "source_ref": "12345"}, brain=b)
        assert "idx_pages_source_ref" in _plan(b, "ref-7")
        monkeypatch.setattr(agents, "_today", lambda: "2026-12-05")
        again = ops.run("ingest", {"content": "Note 7 changed.\n", "source_ref": "ref-7"}, brain=b)
        assert again["changed"] and not again["created"] and again["slug"].startswith("sources/2026-12-02-")
        same = ops.run("ingest", {"content": "---\nsource_ref: 12345\ntitle: Numbered\n---\nText, edited.\n", "source_ref": "12345"}, brain=b)
        assert same["slug"] == numbered["slug"] and same["changed"] and not same["created"]
        assert len(ops.run("list", {"type": "source", "limit": 0}, brain=b)) == 31


def _title_before(content: str, file) -> str:
    """ingest's title rule before 2026-12-03: frontmatter title or an opening H1, else the first
    non-blank line of the whole text, frontmatter lines included."""
    from gbrain.page.markdown import parse_page

    page = parse_page(content, "")
    if page.title:
        return page.title
    for line in content.splitlines():
        s = line.strip().lstrip("#>-* ").strip()
        if s and s != "---":
            return s[:120]
    return "source"


UNCLOSED = "---\ndate: 2026-12-02\n  attendees: [Ana, Bruno]\n\n# Agent Pay pilot check-in\n\nPilot is live.\n"
UNTITLED = "---\ndate: 2026-12-02\n---\nNotes from the call.\n\n# Agent Pay pricing\n\nTiers.\n"


def test_a_source_is_titled_by_its_first_heading_not_a_yaml_line(db_path, monkeypatch):
    """brain_ingest of a document whose frontmatter never closes took its title, and slug, from
    the first YAML line ("date: 2026-12-02") though the text has `# Agent Pay pilot check-in`
    (agent trial 3, finding 4); so did a document with closed frontmatter and no title whose
    first heading is not its first line."""
    from gbrain import operations as ops
    from gbrain.core.brain import Brain
    from gbrain.operations import agents

    monkeypatch.setattr(agents, "_today", lambda: "2026-12-03")
    with Brain.open(db_path, create=True) as b:
        r = ops.run("ingest", {"content": UNCLOSED, "source_type": "meeting"}, brain=b)
        assert r["title"] == "Agent Pay pilot check-in" and r["slug"] == "sources/2026-12-03-agent-pay-pilot-check-in", r
        r2 = ops.run("ingest", {"content": UNTITLED}, brain=b)
        assert r2["title"] == "Agent Pay pricing" and r2["slug"] == "sources/2026-12-02-agent-pay-pricing", r2
        assert b.get_text(r2["slug"]).startswith("---\ndate: 2026-12-02\ntitle: Agent Pay pricing\n")
        # no heading: the first line of the text below the frontmatter
        r3 = ops.run("ingest", {"content": "---\ndate: 2026-12-01\n---\nJust a note.\n"}, brain=b)
        assert r3["title"] == "Just a note." and r3["slug"] == "sources/2026-12-01-just-a-note", r3
        # a `#` line in code is no heading
        r4 = ops.run("ingest", {"content": "Log excerpt\n\n```\n# not a title\n```\n"}, brain=b)
        assert r4["title"] == "Log excerpt", r4


def test_a_source_ingested_under_the_old_title_rule_keeps_its_page(db_path, monkeypatch):
    """Pages ingested before the title fix keep their slug: the same text again (with its ref, or
    with none) finds the page it made and writes nothing; a changed text with its ref updates it
    in place (and then carries the heading as its title)."""
    from gbrain import operations as ops
    from gbrain.core.brain import Brain
    from gbrain.operations import agents

    monkeypatch.setattr(agents, "_today", lambda: "2026-12-03")
    fixed = agents._title_of
    with Brain.open(db_path, create=True) as b:
        monkeypatch.setattr(agents, "_title_of", _title_before)
        old_ref = ops.run("ingest", {"content": UNCLOSED, "source_type": "meeting", "source_ref": "cal:pilot"}, brain=b)
        old_none = ops.run("ingest", {"content": UNTITLED}, brain=b)
        assert old_ref["slug"] == "sources/2026-12-03-date-2026-12-02" and old_none["slug"] == "sources/2026-12-02-date-2026-12-02"
        monkeypatch.setattr(agents, "_title_of", fixed)
        before = [p["slug"] for p in ops.run("list", {"type": "source", "limit": 0}, brain=b)]
        again = ops.run("ingest", {"content": UNCLOSED, "source_type": "meeting", "source_ref": "cal:pilot"}, brain=b)
        assert again["slug"] == old_ref["slug"] and not again["created"] and not again["changed"] and not again["logged"], again
        assert again["title"] == "date: 2026-12-02"  # the page's title, as stored
        none_again = ops.run("ingest", {"content": UNTITLED}, brain=b)
        assert none_again["slug"] == old_none["slug"] and not none_again["created"] and not none_again["changed"], none_again
        assert [p["slug"] for p in ops.run("list", {"type": "source", "limit": 0}, brain=b)] == before
        changed = ops.run("ingest", {"content": UNCLOSED + "Week 2: 40 merchants.\n", "source_type": "meeting", "source_ref": "cal:pilot"}, brain=b)
        assert changed["slug"] == old_ref["slug"] and changed["changed"] and changed["title"] == "Agent Pay pilot check-in"
        assert ops.run("get", {"slug": old_ref["slug"]}, brain=b)["title"] == "Agent Pay pilot check-in"


def test_ingest_parses_the_source_once(db_path, monkeypatch):
    """ingest parsed the source's text up to five times (its title, the old rule's title, the
    date, the page text: each ``parse_page``) and its body once more for the first ``#``
    heading (``first_h1``, 9e99813). One parse gives all of them; the results are unchanged."""
    from gbrain import operations as ops
    from gbrain.core.brain import Brain
    from gbrain.page import markdown

    monkeypatch.setattr("gbrain.operations.agents._today", lambda: "2026-12-03")
    parsed, inside_put = [], []
    real_parse, real_put = markdown._parse_ast, Brain.put

    def counted(lf_text):
        if not inside_put:
            parsed.append(lf_text)
        return real_parse(lf_text)

    def put(self, *a, **k):  # the page's own save parses its text: not ingest's reading of the source
        inside_put.append(1)
        try:
            return real_put(self, *a, **k)
        finally:
            inside_put.pop()

    monkeypatch.setattr(markdown, "_parse_ast", counted)
    monkeypatch.setattr(Brain, "put", put)
    with Brain.open(db_path, create=True) as b:
        r = ops.run("ingest", {"content": UNTITLED}, brain=b)
        assert r["title"] == "Agent Pay pricing" and r["slug"] == "sources/2026-12-02-agent-pay-pricing", r
        assert len(parsed) == 1, parsed


def test_ingest_of_a_pdf_or_an_image_says_what_it_is_and_writes_nothing(tmp_path, db_path):
    """Researcher trial: `gbrain ingest papers/tiny.pdf --type doc` (a PDF whose bytes happen to be
    UTF-8) made a page titled '%PDF-1.4' holding the PDF's syntax, and a real PDF said only "is
    not valid UTF-8 text (byte 9)". A file that opens as a PDF, an image or a zip is refused
    naming what it is and what to do (exit 2), nothing written."""
    from gbrain.core.brain import Brain

    files = {"tiny.pdf": b"%PDF-1.4\n%%EOF\n", "scan.pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "fig.png": b"\x89PNG\r\n\x1a\n\0\0",
             "photo.jpg": b"\xff\xd8\xff\xe0\0\x10JFIF", "data.zip": b"PK\x03\x04\x14\0"}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        r = gbrain_in_process("--db", str(db_path), "ingest", str(tmp_path / name), "--type", "doc")
        err = r.stderr.decode()
        assert r.returncode == 2, (name, r.returncode, err)
        what = {"pdf": "a PDF", "png": "an image", "jpg": "an image", "zip": "a zip archive"}[name.rsplit(".", 1)[1]]
        assert f"{tmp_path / name} is {what}, not text" in err and "import" in err, err
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 0
