"""`timeline` across the brain and between dates: `gbrain timeline [SLUG] --since --until`,
`gbrain call brain_timeline` and the MCP tool (both engines: `--engine postgres`).

Entry dates are `YYYY-MM-DD` as written (`markdown._TIMELINE_LINE_RE`: `2025-03` alone is no
entry), maybe no real date (`2025-02-30`): they compare as text, so such a date sits where its
text sorts; a month or year bound takes every date written in it."""
from __future__ import annotations

import datetime as dt
import json

import anyio

from conftest import gbrain_in_process
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
from test_mcp import connect, ok, text_of

PAGES = {
    "people/ana.md": "# Ana\n\nAna.\n\n---\n\n- **2025-03-04** | meeting — Pitched\n  Wants to close by Q2.\n- **2024-11-20** | email — Q3 update\n",
    "people/bruno.md": "# Bruno\n\nBruno.\n\n---\n\n- **2025-03-04** | call — Met Ana\n- **2025-02-30** | Written on a day that is no date\n- **2025-01-15** | dinner — Costs\n",
    "companies/acme.md": "# Acme\n\nAcme.\n\n---\n\n- **2025-03-31** | crustdata — Headcount 23\n- **2025-04-01** | news — Raised a round\n",
    "notes/plain.md": "# Plain\n\nNo timeline.\n",
}


def brain(tmp_path, db, pages=PAGES):
    tree = tmp_path / "tree"
    for rel, text in pages.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text, encoding="utf-8")
    with Brain.open(db) as b:
        import_tree(b, tree)
    return db


def cli(db, *args):
    return gbrain_in_process("timeline", *args, "--db", str(db))


def js(r):
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout)


def keys(entries):
    return [(e.get("slug"), e["date"]) for e in entries]


def test_without_a_slug_every_pages_entries_newest_first_each_with_its_slug(tmp_path, db_path):
    db = brain(tmp_path, db_path)
    got = js(cli(db, "--json"))
    # newest first; one date: by slug, then as written
    assert keys(got) == [("companies/acme", "2025-04-01"), ("companies/acme", "2025-03-31"), ("people/ana", "2025-03-04"), ("people/bruno", "2025-03-04"),
                         ("people/bruno", "2025-02-30"), ("people/bruno", "2025-01-15"), ("people/ana", "2024-11-20")]
    assert got[2] == {"slug": "people/ana", "date": "2025-03-04", "source": "meeting", "summary": "Pitched", "detail": "Wants to close by Q2."}
    r = cli(db)
    assert r.returncode == 0 and r.stdout.decode().splitlines()[0] == "2025-04-01  companies/acme  news — Raised a round"
    # a page's own timeline: as before, no slug in its entries
    assert keys(js(cli(db, "people/ana", "--json"))) == [(None, "2025-03-04"), (None, "2024-11-20")]
    assert cli(db, "people/ana").stdout.decode().splitlines()[0] == "2025-03-04  meeting — Pitched"


def test_since_and_until_are_inclusive_dates_months_or_years(tmp_path, db_path):
    db = brain(tmp_path, db_path)
    assert keys(js(cli(db, "--since", "2025-03-04", "--until", "2025-03-31", "--json"))) == [
        ("companies/acme", "2025-03-31"), ("people/ana", "2025-03-04"), ("people/bruno", "2025-03-04")]
    # a month: from its first day to its last, every date written in it (2025-02-30 too)
    assert keys(js(cli(db, "--since", "2025-02", "--until", "2025-02", "--json"))) == [("people/bruno", "2025-02-30")]
    assert keys(js(cli(db, "--until", "2025-02-28", "--json"))) == [("people/bruno", "2025-01-15"), ("people/ana", "2024-11-20")]
    assert keys(js(cli(db, "--since", "2025-03-01", "--json")))[-1] == ("people/bruno", "2025-03-04")  # 2025-02-30 sorts before March
    assert keys(js(cli(db, "--since", "2024", "--until", "2024", "--json"))) == [("people/ana", "2024-11-20")]
    # one page between dates
    assert keys(js(cli(db, "people/bruno", "--since", "2025-02", "--json"))) == [(None, "2025-03-04"), (None, "2025-02-30")]
    r = cli(db, "--since", "2026-01-01")
    assert r.returncode == 0 and r.stdout == b"" and r.stderr == b"(no timeline entries)\n"


def test_a_span_back_from_today(tmp_path, db_path):
    today = dt.date.today()
    recent = {"notes/week.md": "# Week\n\nW.\n\n---\n\n" + "".join(f"- **{today - dt.timedelta(days=d)}** | day {d}\n" for d in (0, 1, 7, 8, 30))}
    db = brain(tmp_path, db_path, recent)
    assert [e["summary"] for e in js(cli(db, "--since", "7d", "--json"))] == ["day 0", "day 1", "day 7"]
    assert [e["summary"] for e in js(cli(db, "--since", "1w", "--until", "yesterday", "--json"))] == ["day 1", "day 7"]
    assert [e["summary"] for e in js(cli(db, "--since", "today", "--json"))] == ["day 0"]


def test_a_bad_date_is_refused_with_exit_2_saying_what_is_taken(tmp_path, db_path):
    db = brain(tmp_path, db_path)
    for args, words in ((("--since", "march"), "--since must be a date: YYYY-MM-DD, YYYY-MM or YYYY (or a span like 7d), got 'march'"),
                        (("--until", "2025-02-30"), "--until: not a real date: 2025-02-30"),
                        (("--since", "2025-13"), "--since: not a real date: 2025-13"),
                        (("--since", "2025-3-4"), "--since must be a date"),
                        (("--since", "２０２５"), "--since must be a date"),
                        (("--since", "99999999999d"), "--since: '99999999999d' reaches before the year 1"),
                        (("--since", "2025-04", "--until", "2025-03"), "--since 2025-04 is after --until 2025-03")):
        r = cli(db, *args)
        assert r.returncode == 2 and r.stdout == b"" and words in r.stderr.decode(), (args, r.stderr)
    r = gbrain_in_process("call", "brain_timeline", json.dumps({"until": "2025-02-30"}), "--db", str(db))
    assert r.returncode == 2 and json.loads(r.stdout) == {"error": "until: not a real date: 2025-02-30", "exit_code": 2, "kind": "bad_input"}


def test_the_default_limit_is_100_and_said(tmp_path, db_path):
    many = {f"notes/n{i:03d}.md": f"# N{i}\n\nN.\n\n---\n\n- **2025-01-{1 + i % 28:02d}** | entry {i}\n" for i in range(120)}
    db = brain(tmp_path, db_path, many)
    r = cli(db, "--json")
    assert len(js(r)) == 100 and r.stderr.decode() == "… the first 100; --limit 0 lists all\n"
    assert len(js(cli(db, "--limit", "0", "--json"))) == 120


def test_call_pages_with_a_cursor_bound_to_its_arguments(tmp_path, db_path):
    db = brain(tmp_path, db_path)
    want = keys(js(cli(db, "--since", "2025", "--json")))
    got, cursor, pages = [], "", 0
    while cursor is not None:
        r = js(gbrain_in_process("call", "brain_timeline", json.dumps({"since": "2025", "limit": 2, "cursor": cursor}), "--db", str(db)))
        got += r["items"]
        cursor, pages = r["next_cursor"], pages + 1
    assert keys(got) == want and len(want) == 6 and pages == 3
    first = js(gbrain_in_process("call", "brain_timeline", json.dumps({"since": "2025", "limit": 2, "cursor": ""}), "--db", str(db)))
    r = gbrain_in_process("call", "brain_timeline", json.dumps({"since": "2024", "limit": 2, "cursor": first["next_cursor"]}), "--db", str(db))
    assert r.returncode == 2 and b"other arguments" in r.stderr
    # without a cursor, call answers the whole list (as every paged tool): its items, no page of them
    assert keys(js(gbrain_in_process("call", "brain_timeline", json.dumps({"since": "2025"}), "--db", str(db)))) == want


def test_the_command_line_pages_with_a_cursor_as_call_does(tmp_path, db_path):
    """`timeline --json` prints a bare list, and its "… the first 100" cut was said on stderr only:
    a script could not tell the list was cut. `--cursor` ('' the first page) gives what `call`
    with `cursor` gives, `{"items", "next_cursor"}` (every paged command: list, search, …); the bare
    list without it is unchanged."""
    db = brain(tmp_path, db_path)
    want = keys(js(cli(db, "--since", "2025", "--json")))
    got, cursor, pages = [], "", 0
    while cursor is not None:
        r = cli(db, "--since", "2025", "--limit", "2", "--json", "--cursor", cursor)
        page = js(r)
        assert set(page) == {"items", "next_cursor"} and r.stderr == b"", (page, r.stderr)
        assert page == js(gbrain_in_process("call", "brain_timeline", json.dumps({"since": "2025", "limit": 2, "cursor": cursor}), "--db", str(db)))
        got += page["items"]
        cursor, pages = page["next_cursor"], pages + 1
    assert keys(got) == want and len(want) == 6 and pages == 3
    # the whole list in one page: next_cursor null, where the bare list said nothing either way
    assert js(cli(db, "--since", "2025", "--json", "--cursor", ""))["next_cursor"] is None
    # typer's path (an option after `--` is not the fast path's) takes it too, and the text form says where the next page starts
    r = gbrain_in_process("timeline", "--db", str(db), "--since=2025", "--limit=2", "--cursor", "", "--json", "--")
    assert js(r)["next_cursor"], r.stdout
    r = cli(db, "--since", "2025", "--limit", "2", "--cursor", "")
    assert r.returncode == 0 and len(r.stdout.decode().splitlines()) == 2 and "--cursor " in r.stderr.decode() and "the first" not in r.stderr.decode(), r
    nxt = r.stderr.decode().split("--cursor ", 1)[1].split()[0].strip("'`")
    assert keys(js(cli(db, "--since", "2025", "--limit", "2", "--json", "--cursor", nxt))["items"]) == want[2:4]
    # a cursor of other arguments is refused, as call refuses it
    r = cli(db, "--since", "2024", "--limit", "2", "--json", "--cursor", nxt)
    assert r.returncode == 2 and b"other arguments" in r.stderr
    # the other listings alike
    r = js(gbrain_in_process("list", "--limit", "2", "--json", "--cursor", "", "--db", str(db)))
    assert len(r["items"]) == 2 and r["next_cursor"]


def test_over_mcp_a_weekly_briefing_reads_every_page_by_cursor(tmp_path, db_path):
    db = brain(tmp_path, db_path)

    async def main():
        async with connect(db) as c:
            got, pages, cursor = [], 0, None
            while True:
                r = ok(await c.call_tool("brain_timeline", {"since": "2025-01-15", "until": "2025-03-31", "limit": 2, **({"cursor": cursor} if cursor else {})}))
                got += r["items"]
                pages += 1
                cursor = r["next_cursor"]
                if cursor is None:
                    break
            page = ok(await c.call_tool("brain_timeline", {"slug": "ana", "until": "2024-12"}))
            bad = await c.call_tool("brain_timeline", {"since": "2025-02-30"})
            tools = {t.name: t for t in (await c.list_tools()).tools}
            return got, pages, page, bad, tools["brain_timeline"]

    got, pages, page, bad, tool = anyio.run(main)
    assert keys(got) == [("companies/acme", "2025-03-31"), ("people/ana", "2025-03-04"), ("people/bruno", "2025-03-04"),
                         ("people/bruno", "2025-02-30"), ("people/bruno", "2025-01-15")] and pages == 3
    assert page == {"items": [{"date": "2024-11-20", "source": "email", "summary": "Q3 update", "detail": ""}], "next_cursor": None}
    assert bad.is_error and "since: not a real date: 2025-02-30" in text_of(bad)
    assert tool.input_schema["required"] == [] and set(tool.input_schema["properties"]) == {"slug", "since", "until", "limit", "cursor"}
