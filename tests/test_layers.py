"""The package's layers import downwards only (CLAUDE.md, "Layout"), and the operations registry
has no import cycle: area modules import ``.registry``, never the package."""
import ast
from pathlib import Path

import gbrain
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

PKG = Path(gbrain.__file__).resolve().parent

#: lower number = lower layer; a module may import its own layer or a lower one
LAYER = {"errors": 0, "page": 0, "storage": 1, "search": 2, "core": 3, "sync": 4, "operations": 5, "mcp": 6, "cli": 6, "entry": 6, "__main__": 7}

#: known upward imports, each lazy (inside a function) and each a debt to pay: schema migrations
#: in storage/db.py re-derive rows with the code of the layers above
ALLOWED_UP = {
    ("gbrain.storage.db", "gbrain.core.history"),
    ("gbrain.storage.db", "gbrain.core.brain"),
    ("gbrain.storage.db", "gbrain.search.keyword"),
}


def imports(path: Path):
    """``(module, imported module, lineno, is_top_level)`` for every gbrain import in ``path``."""
    rel = path.relative_to(PKG.parent).with_suffix("")
    mod = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
    package = mod if rel.name == "__init__" else mod.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        if not target.startswith("gbrain"):
            continue
        targets = [f"{target}.{a.name}" for a in node.names] if target.count(".") == 0 else [target]
        for t in targets:
            yield mod, t, node.lineno, id(node) in top


def layer(mod: str) -> str | None:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYER else None


def test_imports_point_down_only():
    bad = []
    for f in sorted(PKG.rglob("*.py")):
        for mod, target, line, _top in imports(f):
            a, b = layer(mod), layer(target)
            if a is None or b is None:
                continue
            if LAYER[b] > LAYER[a] and (mod, target) not in ALLOWED_UP:
                bad.append(f"{mod}:{line} imports {target} ({a} → {b})")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_the_allowed_upward_imports_are_lazy_and_still_exist():
    seen = set()
    for f in sorted(PKG.rglob("*.py")):
        for mod, target, line, top in imports(f):
            if (mod, target) in ALLOWED_UP:
                assert not top, f"{mod}:{line}: an upward import must stay inside a function"
                seen.add((mod, target))
    assert seen == ALLOWED_UP, f"paid debts, remove them from ALLOWED_UP: {ALLOWED_UP - seen}"


def test_area_operation_modules_import_the_registry_not_the_package():
    for f in sorted((PKG / "operations").glob("*.py")):
        if f.name in ("__init__.py", "registry.py"):
            continue
        for mod, target, line, _top in imports(f):
            assert target != "gbrain.operations" and not (target.startswith("gbrain.operations.") and target != "gbrain.operations.registry"), f"{mod}:{line} imports {target}"
