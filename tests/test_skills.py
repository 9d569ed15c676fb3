"""The skills in skills/*/SKILL.md against the live registry and CLI.

* Every ``gbrain …`` command line in a code fence names a real command, real options and a
  sensible number of arguments (checked against the typer app the CLI runs).
* Every ``brain_*`` name anywhere in a skill is a real MCP tool (checked against
  ``gbrain --tools-json``), and every JSON example given to a tool uses only its parameters and
  all its required ones.
* The page templates parse as gbrain pages, and the ingest skill's worked example, replayed
  with the real CLI on a real meeting transcript, yields linked, timeline-annotated pages
  that survive an export → import round trip byte for byte.

A renamed command or option breaks this test, not the agent following the skill.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer

from gbrain import operations as ops
from gbrain.cli import app
from gbrain.core.brain import Brain
from gbrain.page.markdown import parse_page
from gbrain.sync.exporter import export_tree
from gbrain.sync.importer import import_tree

from conftest import CORPORA, ROOT

SKILLS = ROOT / "skills"
SKILL_NAMES = ("ingest", "query", "maintain", "enrich", "briefing")

# Operations being merged from other branches (query/embed: search; ingest: MCP). Skills may
# name them; their options are not checked until they are in the registry.
# Remove this set once those operations are merged.
PENDING: set[str] = set()  # names a skill may quote before their operation lands (none now)

GLOBAL_OPTIONS = {"--db": True, "--tools-json": False, "--json": False, "--help": False, "-h": False}
REDIRECTS = {"<", ">", ">>", "2>", "2>&1", "<<", "|"}


@dataclass
class Problem:
    skill: str
    line: str
    message: str

    def __str__(self) -> str:
        return f"{self.skill}: {self.message}\n    in: {self.line}"


def fences(text: str) -> list[tuple[str, str]]:
    """``(info, body)`` of every fenced code block (``` or ~~~) in ``text``."""
    out, cur, fence, info = [], [], "", ""
    for line in text.splitlines():
        m = re.match(r"^\s*(`{3,}|~{3,})(.*)$", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                out.append((info, "\n".join(cur)))
                fence, cur = "", []
            else:
                cur.append(line)
        elif m:
            fence, info = m.group(1), m.group(2).strip()
    return out


def command_segments(line: str) -> list[str]:
    """The ``gbrain …`` invocations in a shell line (after ``$``, ``|``, ``&&``, ``;``)."""
    line = line.strip()
    if line.startswith("$ "):
        line = line[2:]
    if not line or line.startswith("#"):
        return []
    parts, cur, quote, i = [], "", "", 0
    while i < len(line):  # split at ` | `, ` || `, ` && `, ` ; ` outside quotes
        ch = line[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        else:
            m = re.match(r"\s(?:\|\||\||&&|;)\s", line[i:])
            if m:
                parts.append(cur)
                cur, i = "", i + len(m.group(0))
                continue
        cur += ch
        i += 1
    parts.append(cur)
    return [p.strip() for p in parts if re.match(r"^gbrain(\s|$)", p.strip())]


def click_root():
    """The click command tree the CLI runs (typer vendors click, so objects are duck-typed)."""
    return typer.main.get_command(app)


def tool_schemas() -> dict[str, dict]:
    return {t["name"]: t["input_schema"] for t in ops.tools_json()}


def call_schemas() -> dict[str, dict]:
    """What `gbrain call`/`pipe` take: every operation, MCP tool or not (`call config-set`)."""
    out = {}
    for o in ops.REGISTRY.values():
        schema = o.input_schema()
        out[o.tool_name] = {"properties": {**{p.name: {} for p in o.params}, **schema["properties"]},
                            "required": [p.name for p in o.params if p.required]}  # ingest: `file` or `content`
    return out


# MCP names a document may give that are no tool: the server's prompts, and the README's and
# docs/storage.md's placeholders and test fixtures.
NOT_TOOLS = {"brain_briefing", "brain_ingest_meeting", "brain_tree", "brain_x", "brain_name"}

SHELL_FENCES = {"bash", "sh", "shell", "console", "zsh"}


def strip_comment(line: str) -> str:
    """``line`` without a shell comment: a `` #`` outside quotes (a ``#`` inside a word stays)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line


def shell_lines(body: str) -> list[str]:
    """The logical lines of a shell block: a quote left open or a trailing backslash continues
    the line on the next one."""
    out, cur = [], ""
    for line in body.splitlines():
        cur = f"{cur}\n{line}" if cur else line
        if cur.endswith("\\"):
            cur = cur[:-1]
            continue
        try:
            shlex.split(strip_comment(cur))
        except ValueError:
            continue  # an open quote: the next line continues it
        out.append(strip_comment(cur))
        cur = ""
    if cur:
        out.append(cur)
    return out


def pending_tools() -> set[str]:
    return {"brain_" + n.replace("-", "_") for n in PENDING}


def check_tool_json(skill: str, line: str, tool: str, raw: str, schemas: dict, problems: list[Problem]) -> None:
    if tool not in schemas:
        if tool not in pending_tools():
            problems.append(Problem(skill, line, f"unknown MCP tool {tool}"))
        return
    try:
        args = json.loads(raw)
    except json.JSONDecodeError:
        if "<" in raw or "…" in raw or "..." in raw or re.search(r":\s*[A-Z][A-Z_]*\b", raw):
            # an illustrative placeholder such as {"content": <markdown>} or {"to": N}: its keys still count
            props = schemas[tool].get("properties", {})
            for k in re.findall(r'"([a-z_][a-z0-9_]*)"\s*:', raw):
                if k not in props:
                    problems.append(Problem(skill, line, f"{tool}: unknown parameter '{k}' (has: {', '.join(props)})"))
            return
        problems.append(Problem(skill, line, f"{tool}: arguments are not valid JSON"))
        return
    if not isinstance(args, dict):
        problems.append(Problem(skill, line, f"{tool}: arguments must be a JSON object"))
        return
    props = schemas[tool].get("properties", {})
    for k in args:
        if k not in props:
            problems.append(Problem(skill, line, f"{tool}: unknown parameter '{k}' (has: {', '.join(props)})"))
    for k in schemas[tool].get("required", []):
        if k not in args:
            problems.append(Problem(skill, line, f"{tool}: missing required parameter '{k}'"))


def check_command(skill: str, seg: str, root, schemas: dict, problems: list[Problem], mention: bool = False, usage: bool = False) -> None:
    """Check one ``gbrain …`` invocation. ``mention``: an inline reference such as `gbrain get`,
    whose required arguments may be left out. ``usage``: a document's usage line, whose ``[…]``
    marks optional parts and whose UPPERCASE words (``COMMAND``, ``TOOL``) stand for any."""
    try:
        toks = shlex.split(seg, comments=False)
    except ValueError:
        toks = seg.split()
    # drop redirections and what they point at
    clean, skip, depth = [], False, 0
    for t in toks:
        if skip:
            skip = False
            continue
        if t == "|" and depth == 0:
            break  # the rest is the next command of a pipe (`gbrain get X --output - | pdftotext - -`)
        depth += t.count("[") - t.count("]") if usage else 0  # (a usage line's `[SLUG | --all]`: a choice)
        if t in REDIRECTS:
            skip = t not in ("2>&1",)
            continue
        if re.match(r"^\d?[<>]", t):
            continue
        if usage:  # a usage line: `gbrain put SLUG [--file F]`, `[SLUG | --all]`
            t = t.strip("[]")
            if t in ("", "|", "\\|"):
                continue
        clean.append(t)
    toks = clean[1:]
    while toks and toks[0].startswith("-"):
        opt = toks.pop(0).split("=", 1)[0]
        if opt not in GLOBAL_OPTIONS:
            problems.append(Problem(skill, seg, f"unknown global option {opt}"))
            return
        if GLOBAL_OPTIONS[opt] and toks and "=" not in opt:
            toks.pop(0)
    if not toks:
        return
    name, toks = toks[0], toks[1:]
    if usage and not re.fullmatch(r"[a-z][a-z0-9-]*", name):
        return  # `gbrain COMMAND --help`, `gbrain …`, or output (`gbrain lint: 6 pages`)
    cmd = root.commands.get(name)
    path = name
    if hasattr(cmd, "commands"):
        if mention and usage and not toks:
            return  # prose naming the group: `gbrain skills`
        if not toks or toks[0] not in cmd.commands:
            problems.append(Problem(skill, seg, f"`gbrain {name}` needs a subcommand: {', '.join(cmd.commands)}"))
            return
        path = f"{name} {toks[0]}"
        cmd, toks = cmd.commands[toks[0]], toks[1:]
    if cmd is None:
        if name in PENDING:
            return
        problems.append(Problem(skill, seg, f"unknown command `gbrain {name}`"))
        return
    opts: dict = {}
    for p in cmd.params:
        if p.param_type_name == "option":
            for o in p.opts + p.secondary_opts:
                opts[o] = p
    args = [p for p in cmd.params if p.param_type_name == "argument"]
    positional: list[str] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "--":
            positional += toks[i + 1 :]
            break
        if t.startswith("-") and len(t) > 1 and not re.match(r"^-\d", t):
            o = t.split("=", 1)[0]
            if o in GLOBAL_OPTIONS:
                i += 2 if (GLOBAL_OPTIONS[o] and "=" not in t) else 1
                continue
            p = opts.get(o)
            if p is None:
                problems.append(Problem(skill, seg, f"`gbrain {path}` has no option {o} (has: {', '.join(sorted(opts))})"))
                i += 1
                continue
            i += 1 if (getattr(p, "is_flag", False) or "=" in t) else 2
            continue
        positional.append(t)
        i += 1
    if len(positional) > len(args):
        problems.append(Problem(skill, seg, f"`gbrain {path}` takes {len(args)} argument(s), got {len(positional)}: {positional}"))
    need = [a for a in args if a.required]
    if len(positional) < len(need) and not (mention and not positional):
        problems.append(Problem(skill, seg, f"`gbrain {path}` needs {', '.join(a.name for a in need)}"))
    if name == "call" and len(positional) >= 1:
        tool = positional[0]
        if usage and (tool == "…" or tool.isupper() or positional[1:2] == ["-"]):
            return  # `gbrain call TOOL 'JSON'`, parameters from stdin
        t = tool if tool.startswith("brain_") else "brain_" + tool.replace("-", "_")
        check_tool_json(skill, seg, t, positional[1] if len(positional) > 1 else "{}", call_schemas(), problems)


def check_skill_text(skill: str, text: str) -> list[Problem]:
    """Every problem in one SKILL.md: unknown commands, options, tools, tool parameters."""
    problems: list[Problem] = []
    root = click_root()
    schemas = tool_schemas()
    for _info, body in fences(text):
        for line in body.splitlines():
            for seg in command_segments(line):
                check_command(skill, seg, root, schemas, problems)
            m = re.match(r"^\s*(brain_\w+)\s+(\{.*\})\s*$", line)
            if m:
                check_tool_json(skill, line, m.group(1), m.group(2), schemas, problems)
    # commands quoted inline in prose: `gbrain tag SLUG yc-alum`
    for m in re.finditer(r"(?<!`)`(gbrain [^`\n]+)`(?!`)", text):
        check_command(skill, m.group(1), root, schemas, problems, mention=True)
    # MCP calls quoted inline in prose: `brain_x {...}`
    for m in re.finditer(r"`(brain_\w+)\s+(\{[^`]*\})`", text):
        check_tool_json(skill, m.group(0), m.group(1), m.group(2), schemas, problems)
    # the shorthand prose and the MCP prompts use: brain_x {slug, source, data} / {slug, date: YYYY-MM-DD}
    # (not JSON, so the check above passed brain_raw {slug, source, data} though brain_raw takes no data)
    for m in re.finditer(r"\b(brain_\w+)\s*\{([^{}`]*)\}", text):
        check_tool_names(skill, m.group(0), m.group(1), m.group(2), schemas, problems)
    for m in re.finditer(r"\bbrain_[a-z0-9_]+\b", text):
        if m.group(0) not in schemas and m.group(0) not in pending_tools():
            problems.append(Problem(skill, m.group(0), f"unknown MCP tool {m.group(0)}"))
    return problems


def check_doc_text(doc: str, text: str) -> list[Problem]:
    """Every problem in a document for people (README.md, CLAUDE.md, docs/*.md): the checks of
    ``check_skill_text`` over its shell blocks (``bash``, ``console``: comments, usage brackets
    and placeholders allowed; other blocks are output or code) and its inline `gbrain …` and
    `brain_x {…}` quotes."""
    problems: list[Problem] = []
    root = click_root()
    schemas = tool_schemas()
    for info, body in fences(text):
        if info.split()[:1] and info.split()[0] in SHELL_FENCES:
            for line in shell_lines(body):
                for seg in command_segments(line):
                    check_command(doc, seg, root, schemas, problems, usage=True)
    prose = re.sub(r"^\s*(`{3,}|~{3,}).*?^\s*\1\s*$", "", text, flags=re.S | re.M)
    for m in re.finditer(r"(?<!`)`(gbrain [^`\n]+)`(?!`)", prose):
        check_command(doc, m.group(1), root, schemas, problems, mention=True, usage=True)
    for m in re.finditer(r"`(brain_\w+)\s+(\{[^`]*\})`", prose):
        if m.group(1) in schemas:
            check_tool_json(doc, m.group(0), m.group(1), m.group(2), schemas, problems)
    for m in re.finditer(r"(?<![\w.])brain_[a-z0-9_]+\b", text):  # (not `conftest.brain_at_version`: a Python name)
        if m.group(0) not in call_schemas() and m.group(0) not in NOT_TOOLS:
            problems.append(Problem(doc, m.group(0), f"unknown MCP tool {m.group(0)}"))
    return problems


def check_tool_names(skill: str, line: str, tool: str, body: str, schemas: dict, problems: list[Problem]) -> None:
    """``brain_x {a, b: v, c}``: each name before a comma or colon is a parameter of the tool."""
    if tool not in schemas:
        return  # the name check reports it
    try:
        json.loads("{" + body + "}")
        return  # JSON: check_tool_json's
    except json.JSONDecodeError:
        pass
    props = schemas[tool].get("properties", {})
    for item in body.split(","):
        name = item.split(":", 1)[0].strip()
        if re.fullmatch(r"[a-z_][a-z0-9_]*", name) and name not in props:
            problems.append(Problem(skill, line, f"{tool}: unknown parameter '{name}' (has: {', '.join(props)})"))


def header(text: str) -> dict:
    page = parse_page(text, "SKILL.md")
    assert page.frontmatter_raw, "no YAML header"
    assert page.frontmatter_error is None, page.frontmatter_error
    return page.frontmatter


# ---------------------------------------------------------------------------


@pytest.fixture(params=["source", "installed"])
def skills_root(request) -> Path:
    """The skills as the repository has them, and as a wheel built from it installs them
    (``gbrain/skills`` in a fresh venv, see conftest ``installed_gbrain``)."""
    if request.param == "source":
        return SKILLS
    return request.getfixturevalue("installed_gbrain")["site"] / "skills"


@pytest.mark.engine_free
def test_the_installed_copy_is_the_source():
    """One source of truth: no second copy of the skills in the tree; the package finds
    skills/ in a checkout (the wheel's copy is compared in tests/test_skills_package.py)."""
    from gbrain.operations.skills import load_skills, skills_dir

    assert not (ROOT / "gbrain" / "skills").exists()
    assert skills_dir() == SKILLS
    assert sorted(s.dir for s in load_skills()) == sorted(SKILL_NAMES)


@pytest.mark.engine_free
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_skill_header(name, skills_root):
    text = (skills_root / name / "SKILL.md").read_text(encoding="utf-8")
    fm = header(text)
    assert fm.get("name") == f"gbrain-{name}"
    assert isinstance(fm.get("description"), str) and len(fm["description"].split()) >= 15


@pytest.mark.engine_free
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_skill_commands_and_tools_exist(name, skills_root):
    text = (skills_root / name / "SKILL.md").read_text(encoding="utf-8")
    cmds = [seg for _i, body in fences(text) for line in body.splitlines() for seg in command_segments(line)]
    assert cmds, "a skill must show the exact gbrain commands it uses"
    problems = check_skill_text(name, text)
    assert not problems, "\n".join(map(str, problems))


DOCS = ("README.md", "CLAUDE.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")))


@pytest.mark.engine_free
@pytest.mark.parametrize("doc", DOCS)
def test_docs_name_real_commands_options_and_tools(doc):
    """README.md, CLAUDE.md and docs/*.md are followed literally too (trial18): every `gbrain …`
    they show names a real command, options and arguments, and every `brain_x {…}` real tool
    parameters. Nothing checked them: they had drifted where the skills had not."""
    problems = check_doc_text(doc, (ROOT / doc).read_text(encoding="utf-8"))
    assert not problems, "\n".join(map(str, problems))


@pytest.mark.engine_free
def test_every_command_line_option_is_documented():
    """Options that appeared only in their command's --help (`graph --direction`, `path
    --max-depth`, `tag --remove`, `skills install --skill`, put's partial edits; trial18): every
    option of every command is named in README.md or docs/*.md, where a person reading about
    that command looks."""
    text = "\n".join((ROOT / d).read_text(encoding="utf-8") for d in DOCS if d != "CLAUDE.md")
    missing = []
    for o in ops.REGISTRY.values():
        for p in o.params:
            if p.cli and not p.positional:
                flag = "--" + (p.flag or p.name).replace("_", "-")
                if not re.search(re.escape(flag) + r"(?![\w-])", text):
                    missing.append(f"{o.name} {flag}")
    assert not missing, missing


@pytest.mark.engine_free
def test_doc_checker_reads_usage_lines_and_catches_drift():
    """The documents' own forms pass (comments, `[--opt X]`, placeholders, a quote over two
    lines, output blocks); a renamed option, tool or parameter in them does not."""
    good = """Use `gbrain put SLUG [--file F] [--if-hash H]`, `gbrain skills`, `gbrain call config-set '{"key": "k", "value": "v"}'`
and `brain_revert {"slug": "people/x", "to": N}`; prompts `brain_briefing`.

```bash
gbrain import ~/brain            # lossless import + validation report (exit 1 on any mismatch)
gbrain embed [SLUG | --all | --stale] [--limit N]
gbrain --json search "x#y" --limit 3
gbrain call brain_put '{"slug": "ana-lima",
  "timeline_append": "- **2025-03-05** | call — x"}'
gbrain call TOOL 'JSON'
gbrain COMMAND --help
```

```
gbrain lint: 6 pages, as of 2026-04-30
gbrain scale benchmark; sizes [5000, 50000]
```
"""
    assert [str(p) for p in check_doc_text("good", good)] == []
    bad = """Run `gbrain lint --fixsafe`, `brain_lint {"fix_safe": true}`, `brain_revert {"slug": "a", "version": N}`, brain_nope.

```console
$ gbrain search QUERY [--kind T]   # filters
gbrain call brain_get '{"slug": "a",
  "extra": 1}'
gbrain call config-set '{"key": "k"}'
```
"""
    msgs = [p.message for p in check_doc_text("bad", bad)]
    expect = [
        "`gbrain lint` has no option --fixsafe",
        "brain_lint: unknown parameter 'fix_safe'",
        "brain_revert: unknown parameter 'version'",
        "unknown MCP tool brain_nope",
        "`gbrain search` has no option --kind",
        "brain_get: unknown parameter 'extra'",
        "brain_config_set: missing required parameter 'value'",
    ]
    for e in expect:
        assert any(m.startswith(e) for m in msgs), (e, msgs)


@pytest.mark.engine_free
def test_checker_catches_renamed_commands_options_and_tools():
    bad = """---
name: x
description: y
---
Run `gbrain lint --fixsafe` or `gbrain lnt` (mentioning `gbrain get` alone is fine). Use `brain_nope {"slug": "a"}` and `brain_get {"slug": "a", "extra": 1}` and `brain_get {}`.

```bash
gbrain frobnicate people/a
gbrain list --kind person
gbrain link people/a
gbrain get a b
gbrain config frob
gbrain call brain_tag '{"slug": "a"}'
gbrain query "who knows Ana?" --whatever
gbrain --db x.db search "ok" --limit 3
```

```
brain_timeline_add {"slug": "a", "date": "2025-01-01"}
```

Structured data: brain_raw {slug, source, data}; events: brain_timeline_add {slug, date: YYYY-MM-DD, summary}.
"""
    msgs = [p.message for p in check_skill_text("bad", bad)]
    expect = [
        "unknown command `gbrain frobnicate`",
        "`gbrain lint` has no option --fixsafe",
        "unknown command `gbrain lnt`",
        "`gbrain list` has no option --kind",
        "`gbrain link` needs",
        "`gbrain get` takes 1 argument(s), got 2",
        "`gbrain config` needs a subcommand",
        "brain_tag: missing required parameter 'tag'",
        "brain_timeline_add: missing required parameter 'summary'",
        "unknown MCP tool brain_nope",
        "brain_get: unknown parameter 'extra'",
        "brain_get: missing required parameter 'slug'",
        "`gbrain query` has no option --whatever",
        "brain_raw: unknown parameter 'data'",
    ]
    for e in expect:
        assert any(m.startswith(e) for m in msgs), (e, msgs)
    assert not any("search" in m or "`gbrain get` needs" in m or "brain_timeline_add: unknown" in m for m in msgs), msgs


def test_every_mcp_prompt_names_real_tools_and_parameters(fixture_db):
    """The MCP prompts (brain_ingest_meeting, brain_briefing, each skill's) as `gbrain serve` gives
    them pass the skills' checks: the 2026-12-02 trial followed brain_ingest_meeting's
    `brain_raw {slug, source, data}` into an unknown-parameter error (brain_raw_put takes data)."""
    import anyio

    from test_mcp import connect

    async def main():
        async with connect(fixture_db) as c:
            prompts = (await c.list_prompts()).prompts
            texts = {}
            for p in prompts:
                got = await c.get_prompt(p.name, {})
                texts[p.name] = "\n".join(m.content.text for m in got.messages)
            return texts

    texts = anyio.run(main)
    assert {"brain_ingest_meeting", "brain_briefing", "gbrain-ingest"} <= set(texts)
    from gbrain.mcp.handshake import INSTRUCTIONS

    texts["instructions"] = INSTRUCTIONS  # the server's instructions, which the host shows the agent
    problems = [pr for name, text in texts.items() for pr in check_skill_text(name, text)]
    assert not problems, "\n".join(map(str, problems))


@pytest.mark.engine_free
def test_registry_tools_match_the_cli_tool_list(run):
    """The names the skills are checked against are the ones `gbrain --tools-json` prints."""
    p = run("--tools-json")
    assert p.returncode == 0
    assert {t["name"] for t in json.loads(p.stdout)} == set(tool_schemas())
    for t in ("brain_lint", "brain_threads", "brain_raw", "brain_timeline_add"):
        assert t in tool_schemas()


@pytest.mark.engine_free
def test_pending_names_are_not_yet_registered_or_are_consistent():
    """PENDING exists only until those operations merge; once one is registered it is checked
    like any other command, so keeping it in PENDING is harmless but should be cleaned up."""
    for n in PENDING:
        o = ops.REGISTRY.get(n)
        if o is not None:
            assert o.tool_name == "brain_" + n


# ---------------------------------------------------------------------------
# page templates
# ---------------------------------------------------------------------------


def templates(name: str = "ingest") -> dict[str, str]:
    """The ``### Person|Company|Deal|Meeting`` markdown templates of a skill, by lowercase kind."""
    text = (SKILLS / name / "SKILL.md").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"^### (Person|Company|Deal|Meeting)\b.*?\n```markdown\n(.*?)\n```", text, re.S | re.M):
        out[m.group(1).lower()] = m.group(2) + "\n"
    return out


@pytest.mark.engine_free
def test_templates_are_gbrain_pages():
    t = templates()
    assert set(t) == {"person", "company", "deal", "meeting"}
    for kind, text in t.items():
        page = parse_page(text, "x.md")
        assert page.render() == text
        assert page.frontmatter_error is None, kind
        assert page.type == {"person": "person", "company": "company", "deal": "deal", "meeting": "source"}[kind]
        assert page.title and page.frontmatter.get("updated"), kind
        assert page.separator == "---\n", kind
        assert len(page.timeline_entries) == 1 and page.timeline_entries[0].date == "2026-04-13", kind
        assert all(ln.kind == "markdown" and ln.target.startswith("../") for ln in page.links), kind


# ---------------------------------------------------------------------------
# replaying the ingest skill's worked example
# ---------------------------------------------------------------------------

MEETING = CORPORA / "gbrain-style" / "gbrain-evals" / "eval" / "data" / "amara-life-v1" / "meetings" / "mtg-0000.md"
SOURCE_SLUG = "sources/2026-04-13-portfolio-review-capacitor-labs-q1-performance"

EXTRA_FILES = {
    "sarah-chen.md": """---
title: Sarah Chen
type: person
created: 2026-04-13
updated: 2026-04-13
company: Northgate Partners
---

# Sarah Chen

> Partner at Northgate Partners; invests in enterprise infrastructure. Possible lead for the
> [Capacitor Labs Series B](../deals/capacitor-labs-series-b.md).
""",
    "marcus-reid.md": """---
title: Marcus Reid
type: person
created: 2026-04-13
updated: 2026-04-13
company: Foundry Group
---

# Marcus Reid

> Investor at Foundry Group; active in enterprise infrastructure.
""",
    "halfway-truth.md": """# Halfway Capital

> The owner's fund. Portfolio includes [Capacitor Labs](../companies/capacitor-labs.md), where we
> will keep our pro-rata in the Series B and may increase it (decided 2026-04-13).
""",
}

# pages the brain already has before the meeting is ingested
EXISTING = {
    "companies/halfway-capital.md": """---
title: Halfway Capital
type: company
created: 2024-01-10
updated: 2025-11-02
tags: [fund]
---

# Halfway Capital

> The owner's fund.

---

- **2025-11-02** | manual — Fund II first close.
""",
    "user/amara-okafor.md": """---
title: Amara Okafor
type: person
created: 2024-01-10
---

# Amara Okafor

> The owner of this brain; partner at [Halfway Capital](../companies/halfway-capital.md).
""",
}


def worked_example() -> list[str]:
    text = (SKILLS / "ingest" / "SKILL.md").read_text(encoding="utf-8")
    sec = text[text.index("## 6. Worked example") :]
    body = next(b for info, b in fences(sec) if info == "bash")
    return [ln for ln in body.splitlines() if ln.strip() and not ln.strip().startswith("#")]


@pytest.mark.engine_free
def test_ingest_skill_replayed_on_a_real_meeting(tmp_path):
    if not MEETING.exists():
        pytest.skip("amara-life-v1 meetings not available")
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(MEETING, work / "mtg-0000.md")
    t = templates()
    files = {
        "meeting.md": t["meeting"],
        "hannah-liu.md": t["person"],
        "capacitor-labs.md": t["company"],
        "capacitor-labs-series-b.md": t["deal"],
        **EXTRA_FILES,
    }
    for name, text in files.items():
        (work / name).write_text(text, encoding="utf-8")
    seed = tmp_path / "seed"
    for rel, text in EXISTING.items():
        (seed / rel).parent.mkdir(parents=True, exist_ok=True)
        (seed / rel).write_text(text, encoding="utf-8")
    db = tmp_path / "brain.db"
    with Brain.open(db) as b:
        assert import_tree(b, seed)["ok"]
        b.set_config("embedding_model", "fake")  # once `gbrain embed` is merged: deterministic, offline

    env = {**os.environ, "GBRAIN_DB": str(db)}
    shell_fn = f'gbrain() {{ "{sys.executable}" -m gbrain "$@"; }}\n'
    lint_out = None
    for line in worked_example():
        name = shlex.split(line)[1]
        if name in PENDING and name not in ops.REGISTRY:
            if name == "ingest":  # until `gbrain ingest` is merged: store the transcript the same way by hand
                line, name = f"gbrain put {SOURCE_SLUG} --file mtg-0000.md", "put"
            else:
                continue
        p = subprocess.run(["bash", "-c", shell_fn + line], cwd=work, env=env, capture_output=True, timeout=120)
        if name == "lint":
            lint_out = json.loads(p.stdout)
            continue
        assert p.returncode == 0, (line, p.stderr.decode())
        if name == "ingest":
            assert json.loads(p.stdout)["slug"] == SOURCE_SLUG

    # checked in-process (the commands above were the CLI); same operations as `gbrain … --json`
    def j(name, slug=None):
        return ops.run(name, {"slug": slug} if slug else {}, ops.Context(db=str(db)))

    # linked: every entity page is reached from the meeting, the transcript and each other
    back = {b["slug"] for b in j("backlinks", "people/hannah-liu")}
    assert {"meetings/2026-04-13-capacitor-labs-q1-review", "companies/capacitor-labs", SOURCE_SLUG} <= back
    assert {b["slug"] for b in j("backlinks", "deals/capacitor-labs-series-b")} >= {"companies/capacitor-labs", "people/sarah-chen", "people/marcus-reid"}
    assert "companies/halfway-capital" in {b["slug"] for b in j("backlinks", "companies/capacitor-labs")}
    assert "meetings/2026-04-13-capacitor-labs-q1-review" in {b["slug"] for b in j("backlinks", SOURCE_SLUG)}
    # timeline-annotated: one dated entry from this meeting on each entity page, old ones kept
    for slug in ("people/hannah-liu", "companies/capacitor-labs", "deals/capacitor-labs-series-b", "people/sarah-chen", "people/marcus-reid"):
        rows = j("timeline", slug)
        assert [(r["date"], r["source"]) for r in rows] == [("2026-04-13", "meeting")], slug
    half = j("timeline", "companies/halfway-capital")
    assert [(r["date"], r["source"]) for r in half] == [("2026-04-13", "meeting"), ("2025-11-02", "manual")]
    # the existing page's compiled truth was rewritten, its timeline and other keys kept
    page = j("get", "companies/halfway-capital")["content"]
    assert "updated: '2026-04-13'" in page or "updated: 2026-04-13" in page
    assert "tags: [fund]" in page and "- **2025-11-02** | manual — Fund II first close." in page
    assert "pro-rata" in page.split("\n---\n")[1]
    assert j("tags", "companies/capacitor-labs") == ["portfolio"]
    # the skill's own check: nothing wrong with the pages written, only the transcript's
    # passing mention of Meridian Health is a dead link
    assert lint_out is not None
    assert [(f["check"], f["slug"], f.get("missing_slug")) for f in lint_out["items"]] == [("dead_links", SOURCE_SLUG, "companies/meridian-health")]

    # export → import → export round-trips byte for byte
    out1, out2 = tmp_path / "export1", tmp_path / "export2"
    with Brain.open(db) as b:
        assert export_tree(b, out1)["ok"]
    with Brain.open(tmp_path / "again.db") as b:
        assert import_tree(b, out1)["ok"]
        assert export_tree(b, out2)["ok"]
    files1 = {p.relative_to(out1): p.read_bytes() for p in out1.rglob("*") if p.is_file()}
    files2 = {p.relative_to(out2): p.read_bytes() for p in out2.rglob("*") if p.is_file()}
    assert files1 == files2
    assert Path("people/hannah-liu.md") in files1 and Path(SOURCE_SLUG + ".md") in files1
    assert files1[Path(SOURCE_SLUG + ".md")] == MEETING.read_bytes() or "ingest" in ops.REGISTRY


@pytest.mark.engine_free
def test_the_maintain_skill_says_what_to_do_for_every_default_lint_check():
    """trial18: `gbrain lint` reports `conflict_markers` and `portable_names` by default, and the
    maintain skill, which an agent works through check by check, had no section for either: it
    met findings it had no instruction for. Every check lint runs by default has a
    ``### `name` `` section; the opt-in ones are named."""
    from gbrain.core.lint import CHECKS, OPT_IN

    text = (SKILLS / "maintain" / "SKILL.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^### `([a-z_]+)`", text, re.M))
    assert [c for c in CHECKS if c not in OPT_IN and c not in sections] == []
    assert all(f"`{c}`" in text for c in OPT_IN)


@pytest.mark.engine_free
def test_readme_lists_every_mcp_tool():
    """README's "Tools:" paragraph is where a person learns what an agent can call: every tool
    `serve` offers is named there (a new operation's tool was easy to leave out)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("Tools: `brain_")
    listed = set(re.findall(r"`(brain_\w+)`", readme[start : readme.index("\n\n", start)]))
    assert sorted(set(tool_schemas()) - listed) == []


# Tools no skill needs to name: none now (each has a step in some workflow). A tool added here
# must say why an agent following the skills never calls it.
NOT_IN_SKILLS: dict[str, str] = {}


@pytest.mark.engine_free
def test_every_mcp_tool_has_a_place_in_a_skill():
    """Trial 33: an agent told "follow gbrain's skills" uses only the tools they name, and five of
    the 36 were named nowhere: brain_undo (a botched ingest or enrichment run taken back in one
    call: the skills reverted page by page), brain_untag, brain_stats, brain_reindex,
    brain_history_prune. Every tool `serve` offers is named, by its MCP name, in some skill."""
    text = "\n".join((SKILLS / n / "SKILL.md").read_text(encoding="utf-8") for n in SKILL_NAMES)
    named = set(re.findall(r"\bbrain_[a-z_]+\b", text))
    assert sorted(set(tool_schemas()) - named - set(NOT_IN_SKILLS)) == []
    assert set(NOT_IN_SKILLS) <= set(tool_schemas())  # no stale exemption


@pytest.mark.engine_free
def test_skills_name_the_parts_reading_and_heading_timeline_steps():
    """Trial 33: following the ingest skill's step order (compiled truth, then timeline) on a page
    that keeps `## Timeline` with no `---` above it dropped that section; and the skills said how
    to read a long page whole but not part by part. The tool fields they name exist."""
    get = next(t for t in ops.tools_json() if t["name"] == "brain_get")
    for field in ("next_offset", "sections", "offset"):
        assert field in get["description"] or field in get["input_schema"]["properties"]
    for name in ("ingest", "query"):
        text = (SKILLS / name / "SKILL.md").read_text(encoding="utf-8")
        assert "`next_offset`" in text and "`sections`" in text, name
    for name in ("ingest", "maintain", "enrich"):
        text = (SKILLS / name / "SKILL.md").read_text(encoding="utf-8")
        assert "`## Timeline`" in text and "brain_timeline_add" in text, name


@pytest.mark.engine_free
def test_briefing_import_check_sees_an_import_under_later_writes(tmp_path):
    """Trial 56: the briefing skill (1.1) told the agent to ask `brain_changes {"since": "24h"}`
    who wrote the day's changes and to call the day a (re)import when they were nearly all
    `import`. That call lists the newest 20 rows: an import followed by a morning of the agent's
    own writes showed 20 `mcp` rows and not one of the import's 2,262, so the agent listed the
    whole import as news. The skill's `brain_changes` calls of 1.1 (but the one that leaves the
    import out) must show an import that ran in the window, whatever was written after it."""
    section = (SKILLS / "briefing" / "SKILL.md").read_text(encoding="utf-8")
    section = section.split("### 1.1", 1)[1].split("### 1.2", 1)[0]
    calls = [json.loads(m.group(2)) for m in re.finditer(r"`(brain_\w+)\s+(\{[^`]*\})`", section)
             if m.group(1) == "brain_changes"]
    calls = [c for c in calls if c.get("exclude_origin") != "import"]
    assert calls, "the briefing skill's 1.1 names no brain_changes call to find an import with"
    seed = tmp_path / "seed"
    (seed / "people").mkdir(parents=True)
    for i in range(30):
        (seed / "people" / f"p{i}.md").write_text(f"---\ntitle: P{i}\ntype: person\n---\n\n# P{i}\n", encoding="utf-8")
    with Brain.open(tmp_path / "brain.db") as b:
        assert import_tree(b, seed)["ok"]
        for i in range(25):  # the agent's morning, after the import
            ops.run_tool("timeline-add", {"slug": f"people/p{i}", "date": "2026-12-05", "summary": f"met {i}"},
                         ops.Context(surface="mcp"), brain=b)
        seen = [ops.run_tool("changes", dict(c), ops.Context(surface="mcp"), brain=b) for c in calls]
    origins = {row["origin"] for answer in seen for row in answer["items"]}
    assert "import" in origins, (calls, origins)


@pytest.mark.engine_free
def test_briefing_people_in_play_leave_out_an_import(tmp_path):
    """Trial 56: the briefing skill's 1.5 lists the people pages written in the last 7 days and
    has the agent read each one; a week after an import that list is the import's (50 of 329
    people of a 2,000-page brain, full), none of them in play. 1.5 must name a call that, after
    an import, lists the people the other writers changed: here the two the agent wrote."""
    section = (SKILLS / "briefing" / "SKILL.md").read_text(encoding="utf-8")
    section = section.split("### 1.5", 1)[1].split("### 1.6", 1)[0]
    calls = [(m.group(1), json.loads(m.group(2))) for m in re.finditer(r"`(brain_\w+)\s+(\{[^`]*\})`", section)]
    seed = tmp_path / "seed"
    (seed / "people").mkdir(parents=True)
    for i in range(60):
        (seed / "people" / f"p{i}.md").write_text(f"---\ntitle: P{i}\ntype: person\n---\n\n# P{i}\n", encoding="utf-8")
    answers = []
    with Brain.open(tmp_path / "brain.db") as b:
        assert import_tree(b, seed)["ok"]
        for slug in ("people/p7", "people/p42"):
            ops.run_tool("timeline-add", {"slug": slug, "date": "2026-12-05", "summary": "met"}, ops.Context(surface="mcp"), brain=b)
        for tool, args in calls:
            r = ops.run_tool(tool.removeprefix("brain_").replace("_", "-"), dict(args), ops.Context(surface="mcp"), brain=b)
            answers.append({row.get("slug") or row.get("name") for row in r["items"] if row.get("type") == "person"})
    assert {"people/p7", "people/p42"} in answers, (calls, answers)


@pytest.mark.engine_free
def test_ingest_skill_a_file_path_is_the_ref(tmp_path):
    """The ingest skill says a file's path is its ref on the command line: the same transcript
    saved under another path (an agent's new temp file) is a second source page, and the same
    text piped in finds the page (skilltrial, s61: an agent ingesting one meeting twice)."""
    text = (SKILLS / "ingest" / "SKILL.md").read_text(encoding="utf-8")
    assert "a file's path is its ref" in text and "a second source page" in text
    a, b_ = tmp_path / "a.md", tmp_path / "b.md"
    for p in (a, b_):
        p.write_text("---\ndate: 2026-04-13\n---\n\n# Q1 review\n\nNotes.\n", encoding="utf-8")
    with Brain.open(tmp_path / "brain.db", create=True) as b:
        first = ops.run("ingest", {"file": str(a), "source_type": "meeting"}, brain=b)
        again = ops.run("ingest", {"file": str(a), "source_type": "meeting"}, brain=b)
        other = ops.run("ingest", {"file": str(b_), "source_type": "meeting"}, brain=b)
        bare = ops.run("ingest", {"content": a.read_text(encoding="utf-8"), "source_type": "meeting"}, brain=b)
    assert (again["slug"], again["created"]) == (first["slug"], False)
    assert other["created"] and other["slug"] == first["slug"] + "-2"
    assert not bare["created"] and bare["slug"] in (first["slug"], other["slug"])
