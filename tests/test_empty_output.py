"""An empty answer prints nothing on stdout.

`gbrain list --tag nothing` printed `(none)` on stdout, so `gbrain list --tag nothing | wc -l`
counted 1 page; likewise every listing's placeholder (`no matches`, `(no backlinks)`, `the trash
is empty`, …). The placeholder goes to stderr (the person still reads it), stdout stays empty,
the exit code stays 0 (README: an empty answer is exit 0), and `--json` stays valid JSON."""
from __future__ import annotations

import json

from conftest import gbrain, gbrain_in_process

PAGE_A = "---\ntitle: A\n---\nhello [[b]]\n"


def _brain(db) -> str:
    db = str(db)
    assert gbrain_in_process("--db", db, "put", "a", input=PAGE_A).returncode == 0
    assert gbrain_in_process("--db", db, "put", "b", input="bee\n").returncode == 0
    assert gbrain_in_process("--db", db, "put", "c", input="sea\n").returncode == 0
    return db


def test_list_with_no_result_prints_nothing_on_stdout_as_a_real_process(db_path):
    db = _brain(db_path)
    r = gbrain("--db", db, "list", "--tag", "nothing")
    assert r.returncode == 0 and r.stdout == b"", r.stdout  # `| wc -l` counts 0
    assert "(none)" in r.stderr.decode()
    r = gbrain("--db", db, "list", "--tag", "nothing", "--json")
    assert r.returncode == 0 and json.loads(r.stdout) == []


# (command, a placeholder said on stderr instead)
EMPTY = [
    (["list", "--tag", "nothing"], "(none)"),
    (["list", "--type", "nothing"], "(none)"),
    (["search", "zzzqqq"], "no matches"),
    (["query", "zzzqqq"], "no matches"),
    (["tags"], "(none)"),
    (["tags", "a"], "(none)"),
    (["links", "b"], "(no links)"),
    (["backlinks", "a"], "(no backlinks)"),
    (["timeline", "a"], "(no timeline entries)"),
    (["timeline", "--since", "2020-01-01", "--until", "2020-01-02"], "(no timeline entries)"),
    (["threads"], "(no open threads)"),
    (["conflicts"], "no open conflicts"),
    (["trash"], "the trash is empty"),
    (["changes", "--since", "2020-01-01", "--until", "2020-01-02"], "no changes"),
    (["path", "b", "c"], "no link chain between b and c"),
]


def test_every_empty_listing_says_so_on_stderr_and_leaves_stdout_empty(db_path):
    db = _brain(db_path)
    for argv in EMPTY:
        cmd, said = argv
        r = gbrain_in_process("--db", db, *cmd)
        assert r.returncode == 0, (cmd, r.returncode, r.stderr)
        assert r.stdout == b"", (cmd, r.stdout)
        assert said in r.stderr.decode(), (cmd, r.stderr)
        r = gbrain_in_process("--db", db, *cmd, "--json")
        assert r.returncode == 0, (cmd, r.stderr)
        got = json.loads(r.stdout)  # valid JSON, its listing empty
        listing = got if isinstance(got, list) else got.get("items", got.get("path"))
        assert listing in ([], None), (cmd, got)
        assert said not in r.stderr.decode() or cmd[0] in ("list", "search", "query"), (cmd, r.stderr)


def test_a_listing_with_results_still_prints_them_on_stdout(db_path):
    db = _brain(db_path)
    r = gbrain_in_process("--db", db, "backlinks", "b")
    assert r.returncode == 0 and r.stdout.decode().startswith("a  x1"), r.stdout
    assert "(no backlinks)" not in r.stderr.decode()
