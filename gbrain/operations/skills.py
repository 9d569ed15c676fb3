"""The agent skills (``skills/*/SKILL.md``) as operations: ``skills-list``, ``skills-show``,
``skills-install`` (the CLI's ``gbrain skills``, ``gbrain skills show NAME``,
``gbrain skills install``).

One source: the repository's top-level ``skills/<dir>/SKILL.md``. A wheel carries a copy at
``gbrain/skills/<dir>/SKILL.md`` (``setup.py`` copies it at build time); a checkout or an
editable install reads ``skills/`` in place. :func:`skills_dir` finds whichever exists.

Installing writes ``<base>/<name>/SKILL.md`` where an agent host looks for Agent Skills
(``<name>`` is the skill's frontmatter ``name``, e.g. ``gbrain-ingest``, as the Agent Skills
format asks the folder to be named) and beside it ``.gbrain-skill.json`` recording the sha256 of
what was written. A later install replaces a copy only while its hash is still the recorded one;
a copy edited since (or one gbrain did not write) is kept unless ``force``, and even then the
edited bytes are first saved beside it as ``SKILL.md.edited-<UTC time>``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__
from ..errors import BadInput, GBrainError, NotFound
from .registry import Param, op

#: where each agent host reads Agent Skills: (project folder, user folder under $HOME)
HOSTS = {
    "claude-code": (".claude/skills", ".claude/skills"),  # Claude Code
    "codex": (".agents/skills", ".agents/skills"),  # OpenAI Codex (the cross-host .agents/skills)
}
MARKER = ".gbrain-skill.json"


@dataclass(frozen=True)
class Skill:
    """One skill: ``dir`` (``ingest``), ``name`` from its frontmatter (``gbrain-ingest``),
    ``description`` (frontmatter, whitespace folded), ``path`` of its SKILL.md, ``text``."""

    dir: str
    name: str
    description: str
    path: Path
    text: str

    @property
    def summary(self) -> str:
        """The description's first sentence (a one-line description)."""
        m = re.match(r"(.+?[.!?])(\s|$)", self.description)
        return m.group(1) if m else self.description

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def skills_dir() -> Path:
    """The folder holding ``<dir>/SKILL.md``: the packaged copy (``gbrain/skills``) in an installed
    wheel, else the repository's ``skills/`` (checkout, editable install). Raises GBrainError
    when neither exists (a broken build)."""
    package = Path(__file__).resolve().parent.parent  # gbrain/
    for d in (package / "skills", package.parent / "skills"):
        if any(d.glob("*/SKILL.md")):
            return d
    raise GBrainError(f"gbrain's skills are missing from this installation (looked in {package / 'skills'} and {package.parent / 'skills'})")


def load_skills(root: Path | None = None) -> list[Skill]:
    """Every skill under ``root`` (default :func:`skills_dir`), sorted by name. A SKILL.md without
    a ``name``/``description`` header is an error (GBrainError): it would not load in any host."""
    from ..page.markdown import load_frontmatter

    out = []
    for f in sorted((root or skills_dir()).glob("*/SKILL.md")):
        text = f.read_text(encoding="utf-8")
        m = re.match(r"---\r?\n.*?\r?\n---\r?\n", text, re.S)  # the header only: no markdown parse
        fm = load_frontmatter(m.group(0))[0] if m else {}
        name, desc = fm.get("name"), fm.get("description")
        if not isinstance(name, str) or not isinstance(desc, str):
            raise GBrainError(f"{f}: the YAML header needs name and description")
        out.append(Skill(f.parent.name, name, " ".join(desc.split()), f, text))
    return sorted(out, key=lambda s: s.name)


def find_skill(name: str, skills: list[Skill] | None = None) -> Skill:
    """A skill by its name (``gbrain-ingest``) or folder (``ingest``); NotFound lists the names."""
    skills = load_skills() if skills is None else skills
    for s in skills:
        if name in (s.name, s.dir):
            return s
    raise NotFound(f"no skill '{name}'; skills: {', '.join(s.name for s in skills)}", [s.name for s in skills])


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _recorded_sha(folder: Path) -> str | None:
    try:
        rec = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    v = rec.get("sha256") if isinstance(rec, dict) else None
    return v if isinstance(v, str) else None


def _backup_name(target: Path) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    cand, n = target.with_name(f"{target.name}.edited-{stamp}"), 1
    while cand.exists():
        n += 1
        cand = target.with_name(f"{target.name}.edited-{stamp}-{n}")
    return cand


def install_skill(skill: Skill, base: Path, force: bool = False) -> dict:
    """Write ``skill`` to ``base/<name>/SKILL.md``. Returns ``{name, path, action}`` where action is
    created | updated (the copy was gbrain's, unedited) | unchanged | kept (edited locally, not
    replaced) | replaced (edited locally, replaced with ``force``; ``backup`` names the saved copy)."""
    folder = base / skill.name
    target = folder / "SKILL.md"
    data = skill.text.encode("utf-8")
    new_sha = _sha(data)
    out: dict = {"name": skill.name, "path": str(target)}
    try:
        old = target.read_bytes()
    except FileNotFoundError:
        old = None
    except IsADirectoryError as e:
        raise GBrainError(f"{target} is a folder; move it away and install again") from e
    if old is not None and _sha(old) == new_sha:
        out["action"] = "unchanged"
    elif old is None:
        out["action"] = "created"
    elif _sha(old) == _recorded_sha(folder):
        out["action"] = "updated"
    elif not force:
        out["action"] = "kept"
        out["reason"] = "edited since gbrain installed it" if _recorded_sha(folder) else "not written by gbrain"
        return out
    else:
        backup = _backup_name(target)
        _write_atomic(backup, old)
        out["action"], out["backup"] = "replaced", str(backup)
    folder.mkdir(parents=True, exist_ok=True)
    if out["action"] != "unchanged":
        _write_atomic(target, data)
    if _recorded_sha(folder) != new_sha:
        rec = {"skill": skill.name, "sha256": new_sha, "gbrain": __version__, "note": "written by `gbrain skills install`; edit SKILL.md freely, install keeps edited copies"}
        _write_atomic(folder / MARKER, (json.dumps(rec, indent=1) + "\n").encode("utf-8"))
    return out


def install_base(host: str, project: str | None, user: bool) -> Path:
    """The folder holding the skill folders for ``host``: ``<project>/.claude/skills`` or, with
    ``user``, ``~/.claude/skills`` (Claude Code; ``.agents/skills`` for Codex). BadInput for an
    unknown host, both targets at once, or a project path that is not a folder."""
    if host not in HOSTS:
        raise BadInput(f"unknown host '{host}'; hosts: {', '.join(HOSTS)}")
    if user and project:
        raise BadInput("give --project DIR or --user, not both")
    proj_rel, user_rel = HOSTS[host]
    if user:
        return Path.home() / user_rel
    root = Path(project or ".").expanduser()
    if not root.is_dir():
        raise BadInput(f"project folder {root} does not exist")
    return root.resolve() / proj_rel


# ---------------------------------------------------------------------------
# operations
# ---------------------------------------------------------------------------


def _list_text(r: list[dict], a: dict) -> str:
    width = max((len(s["name"]) for s in r), default=0)

    def cut(t: str, n: int = 100) -> str:
        return t if len(t) <= n else t[: t.rfind(" ", 0, n - 1)].rstrip(",;:") + " …"

    lines = [f"{s['name']:<{width}}  {cut(s['summary'])}" for s in r]
    return "\n".join(lines) + "\n\nShow one: gbrain skills show NAME; give them to Claude Code: gbrain skills install --project ."


@op("skills-list", "List the agent skills shipped with gbrain (name and one-line description).", [], mcp=False, title="List the agent skills", db="none", text=_list_text)
def _skills_list(b, a, ctx):
    return [{"name": s.name, "dir": s.dir, "summary": s.summary, "description": s.description, "path": str(s.path)} for s in load_skills()]


@op(
    "skills-show",
    "Print one agent skill's SKILL.md exactly as shipped.",
    [Param("name", required=True, positional=True, description="skill name (gbrain-ingest) or short name (ingest)")],
    mcp=False, title="Print an agent skill",
    db="none",
    text=lambda r, a: r["content"],
    text_exact=True,
)
def _skills_show(b, a, ctx):
    s = find_skill(a["name"])
    return {"name": s.name, "path": str(s.path), "sha256": s.sha256, "content": s.text}


def _install_text(r: dict, a: dict) -> str:
    lines = []
    for s in r["skills"]:
        act = s["action"]
        if act == "kept":
            lines.append(f"kept      {s['path']} ({s['reason']}; --force replaces it and saves your copy beside it)")
        elif act == "replaced":
            lines.append(f"replaced  {s['path']} (your copy saved as {s['backup']})")
        else:
            lines.append(f"{act:<9} {s['path']}")
    n = sum(s["action"] in ("created", "updated", "replaced") for s in r["skills"])
    lines.append(f"{n} written, {len(r['skills']) - n} left as they were, in {r['dir']} (host {r['host']})")
    return "\n".join(lines)


@op(
    "skills-install",
    "Copy the agent skills to where an agent host reads them: <project>/.claude/skills/<name>/SKILL.md "
    "(default: the current folder) or ~/.claude/skills with user (Claude Code); .agents/skills for codex. "
    "A copy edited since it was installed is kept unless force (which saves it beside the new one first). "
    "ok is false (exit 1) when a copy was kept.",
    [
        Param("project", path=True, description="project folder to install into (default: the current folder)"),
        Param("user", "boolean", "install for the user (~/.claude/skills) instead of a project", default=False),
        Param("host", description="agent host: " + ", ".join(HOSTS), default="claude-code", enum=list(HOSTS)),
        Param("skill", description="install only this skill (name or short name; default: all)"),
        Param("force", "boolean", "replace copies edited locally (each edited copy is saved beside it first)", default=False),
    ],
    mcp=False, title="Install the agent skills",
    db="none",
    text=_install_text,
    mutating=True,
)
def _skills_install(b, a, ctx):
    base = install_base(a["host"], a.get("project"), bool(a.get("user")))
    skills = load_skills()
    if a.get("skill"):
        skills = [find_skill(a["skill"], skills)]
    results = [install_skill(s, base, force=bool(a.get("force"))) for s in skills]
    return {"ok": not any(r["action"] == "kept" for r in results), "host": a["host"], "dir": str(base), "skills": results}
