"""The skills travel with gbrain: in the wheel, through `gbrain skills`, into agent hosts, over MCP.

The wheel test builds an sdist and a wheel from a copy of the project and installs it into a
fresh venv (conftest ``installed_gbrain``); the rest drive the real CLI and the real MCP client.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import zipfile
from pathlib import Path

import anyio

from gbrain.operations.skills import load_skills

from conftest import ROOT, gbrain
from test_mcp import connect
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

SKILLS = ROOT / "skills"
SOURCE = {d.name: (d / "SKILL.md").read_bytes() for d in sorted(SKILLS.iterdir()) if (d / "SKILL.md").is_file()}


def claude_dir(project: Path) -> Path:
    return project / ".claude" / "skills"


def installed(base: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in sorted(base.glob("*/SKILL.md"))}


def expected() -> dict[str, bytes]:
    return {f"gbrain-{d}": data for d, data in SOURCE.items()}


def test_wheel_carries_the_skills_and_installs_them_into_a_project(installed_gbrain, tmp_path):
    with zipfile.ZipFile(installed_gbrain["wheel"]) as z:
        shipped = {n.split("/")[2]: z.read(n) for n in z.namelist() if n.startswith("gbrain/skills/") and n.endswith("/SKILL.md")}
        entry_points = next(z.read(n).decode() for n in z.namelist() if n.endswith(".dist-info/entry_points.txt"))
    assert shipped == SOURCE  # byte for byte, every skill, nothing else
    assert "gbrain = gbrain.launch:main" in entry_points  # launch.py, then the fast start-up path (tests/test_startup.py)
    assert not (ROOT / "gbrain" / "skills").exists()  # no second copy in the tree

    project = tmp_path / "proj"
    project.mkdir()
    env = {**installed_gbrain["env"], "HOME": str(tmp_path / "home")}

    def run(*args):
        return subprocess.run([str(installed_gbrain["gbrain"]), *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)

    listed = run("skills", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert {r["name"] for r in rows} == set(expected())
    assert all(Path(r["path"]).resolve().is_relative_to(installed_gbrain["site"].resolve()) for r in rows)  # the packaged copy

    p = run("skills", "install", "--project", str(project))
    assert p.returncode == 0, p.stderr
    assert installed(claude_dir(project)) == expected()
    for name in expected():
        assert f"created   {claude_dir(project).resolve() / name / 'SKILL.md'}" in p.stdout  # says what it wrote
    again = run("skills", "install", "--project", str(project), "--json")
    assert again.returncode == 0 and {s["action"] for s in json.loads(again.stdout)["skills"]} == {"unchanged"}


def test_skills_list_and_show(run):
    p = run("skills")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().splitlines()
    for s in load_skills():
        row = next(ln for ln in lines if ln.startswith(s.name + " "))
        assert s.summary[:40] in row and "\n" not in s.summary
    rows = json.loads(run("--json", "skills").stdout)
    assert [r["name"] for r in rows] == sorted(expected())
    assert json.loads(run("skills", "list", "--json").stdout) == rows
    assert run("skills", "show", "ingest").stdout == SOURCE["ingest"]  # exactly as shipped
    shown = json.loads(run("skills", "show", "gbrain-query", "--json").stdout)
    assert shown["content"].encode() == SOURCE["query"] and shown["sha256"] == hashlib.sha256(SOURCE["query"]).hexdigest()
    bad = run("skills", "show", "nope")
    assert bad.returncode == 1 and b"gbrain-ingest" in bad.stderr
    # the same operations through the registry's other surfaces
    via_call = run("call", "skills-show", '{"name": "maintain"}')
    assert json.loads(via_call.stdout)["content"].encode() == SOURCE["maintain"]


def test_install_keeps_local_edits_unless_forced_and_never_loses_them(run, tmp_path):
    base = claude_dir(tmp_path)
    assert run("skills", "install", "--project", str(tmp_path)).returncode == 0
    mine = base / "gbrain-query" / "SKILL.md"
    edited = SOURCE["query"] + b"\n## My notes\n\nAsk Ana first.\n"
    mine.write_bytes(edited)
    stranger = base / "gbrain-ingest" / "SKILL.md"
    (base / "gbrain-ingest" / ".gbrain-skill.json").unlink()  # a copy gbrain has no record of
    stranger.write_bytes(b"---\nname: gbrain-ingest\ndescription: someone else's\n---\n")

    p = run("skills", "install", "--project", str(tmp_path), "--json")
    assert p.returncode == 1
    acts = {s["name"]: s for s in json.loads(p.stdout)["skills"]}
    assert acts["gbrain-query"]["action"] == "kept" and "edited" in acts["gbrain-query"]["reason"]
    assert acts["gbrain-ingest"]["action"] == "kept" and "not written by gbrain" in acts["gbrain-ingest"]["reason"]
    assert acts["gbrain-maintain"]["action"] == "unchanged"
    assert mine.read_bytes() == edited and stranger.read_bytes().endswith(b"someone else's\n---\n")
    text = run("skills", "install", "--project", str(tmp_path))
    assert text.returncode == 1 and b"--force" in text.stdout

    forced = run("skills", "install", "--project", str(tmp_path), "--force", "--json")
    assert forced.returncode == 0, forced.stderr
    acts = {s["name"]: s for s in json.loads(forced.stdout)["skills"]}
    assert acts["gbrain-query"]["action"] == "replaced"
    assert Path(acts["gbrain-query"]["backup"]).read_bytes() == edited  # the edited copy survives
    assert installed(base) == expected()


def test_install_updates_an_unedited_older_copy(run, tmp_path):
    """A copy exactly as an older gbrain wrote it is gbrain's to replace."""
    from gbrain.operations.skills import MARKER

    assert run("skills", "install", "--project", str(tmp_path), "--skill", "briefing").returncode == 0
    folder = claude_dir(tmp_path) / "gbrain-briefing"
    assert [p.name for p in claude_dir(tmp_path).iterdir()] == ["gbrain-briefing"]
    old = b"---\nname: gbrain-briefing\ndescription: an older version\n---\n"
    (folder / "SKILL.md").write_bytes(old)
    rec = json.loads((folder / MARKER).read_text())
    (folder / MARKER).write_text(json.dumps({**rec, "sha256": hashlib.sha256(old).hexdigest()}))
    p = run("skills", "install", "--project", str(tmp_path), "--skill", "gbrain-briefing", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["skills"][0]["action"] == "updated"
    assert (folder / "SKILL.md").read_bytes() == SOURCE["briefing"]
    assert not list(folder.glob("SKILL.md.edited-*"))


def test_install_targets_user_and_other_hosts(run, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home)}
    assert run("skills", "install", "--user", env=env).returncode == 0
    assert installed(home / ".claude" / "skills") == expected()
    assert run("skills", "install", "--user", "--host", "codex", env=env).returncode == 0
    assert installed(home / ".agents" / "skills") == expected()
    cwd = tmp_path / "here"
    cwd.mkdir()
    assert gbrain("skills", "install", cwd=cwd).returncode == 0  # default: the current folder
    assert installed(claude_dir(cwd)) == expected()
    for args, msg in [
        (["--user", "--project", str(cwd)], b"not both"),
        (["--host", "vim"], b"must be one of claude-code, codex"),
        (["--project", str(tmp_path / "missing")], b"does not exist"),
    ]:
        p = run("skills", "install", *args, env=env)
        assert p.returncode == 2 and msg in p.stderr, (args, p.stderr)
    assert not (tmp_path / "missing").exists()


def test_each_skill_is_an_mcp_prompt_and_resource(tmp_path):
    async def main():
        async with connect(tmp_path / "brain.db", extra=["--create"]) as c:
            out = {}
            for s in load_skills():
                res = await c.read_resource(f"brain://skills/{s.name}")
                plain = await c.get_prompt(s.name, {})
                task = await c.get_prompt(s.name, {"task": "Who knows Ana Lima?"})
                out[s.name] = (res, plain, task)
            return out, await c.list_prompts()

    out, prompts = anyio.run(main)
    by_name = {p.name: p for p in prompts.prompts}
    for s in load_skills():
        res, plain, task = out[s.name]
        assert res.contents[0].text == s.text and res.contents[0].mime_type == "text/markdown"
        assert plain.messages[0].content.text == s.text
        assert task.messages[0].content.text.startswith(s.text) and task.messages[0].content.text.endswith("Who knows Ana Lima?\n")
        assert s.summary in by_name[s.name].description
    assert {"brain_briefing", "brain_ingest_meeting"} <= set(by_name)


def test_readme_gives_claude_code_the_skills_in_one_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "gbrain skills install --project ." in readme
    assert os.path.exists(ROOT / "MANIFEST.in") and "graft skills" in (ROOT / "MANIFEST.in").read_text()
