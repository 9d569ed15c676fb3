"""Build hook: the agent skills ship inside the package.

``skills/*/SKILL.md`` at the top of the repository is the one source; a wheel built from the
repository (or from its sdist, which carries ``skills/`` through MANIFEST.in) gets a copy at
``gbrain/skills/<dir>/SKILL.md``, where :mod:`gbrain.operations.skills` looks first. Nothing is copied
into the source tree: an editable install or a checkout reads ``skills/`` itself. Project
metadata lives in pyproject.toml.
"""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class build_py_with_skills(build_py):
    """``build_py`` plus the skills: copies ``skills/<dir>/SKILL.md`` into the built package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # editable installs read the repository's skills/ in place
        src = Path(__file__).resolve().parent / "skills"
        found = sorted(src.glob("*/SKILL.md"))
        if not found:
            raise SystemExit(f"no skills found under {src}: the wheel would ship without them")
        for f in found:
            dest = Path(self.build_lib) / "gbrain" / "skills" / f.parent.name
            self.mkpath(str(dest))
            self.copy_file(str(f), str(dest / "SKILL.md"), preserve_mode=False)

    def get_outputs(self, include_bytecode=True):
        src = Path(__file__).resolve().parent / "skills"
        extra = [str(Path(self.build_lib) / "gbrain" / "skills" / f.parent.name / "SKILL.md") for f in sorted(src.glob("*/SKILL.md"))]
        return super().get_outputs(include_bytecode) + extra


setup(cmdclass={"build_py": build_py_with_skills})
