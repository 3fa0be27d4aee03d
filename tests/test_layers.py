"""The packages import one way, ``maps → engine → bot``, and no package has an import
cycle among its modules (DESIGN.md). Read from the source with ``ast``: nothing is run."""

from __future__ import annotations

import ast
import functools
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("maps", "engine", "bot")
# Which packages each may import (itself included).
ALLOWED = {"maps": {"maps"}, "engine": {"maps", "engine"}, "bot": {"maps", "engine", "bot"}}


def _modules(package: str) -> dict[str, Path]:
    out = {}
    for path in (ROOT / package).rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = {name: path for package in PACKAGES for name, path in _modules(package).items()}


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Modules of the three packages that ``module`` imports (its ``from x import y``: the
    module ``x.y`` if there is one, else ``x``), outside ``if TYPE_CHECKING`` blocks."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if _type_checking_only(node):
            continue
        stack.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                name = f"{base}.{alias.name}"
                found.add(name if name in MODULES else base)
    return {name for name in found if name in MODULES and name != module}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    return {name: _imported(ast.parse(path.read_text(), filename=str(path)), name,
                            path.name == "__init__.py")
            for name, path in MODULES.items()}


@pytest.mark.slow
def test_the_graph_sees_imports():
    graph = import_graph()
    assert "engine.state" in graph["engine.game"]
    assert "bot.play.handlers" in graph["bot.play.controls"]
    assert "maps.model" in graph["maps"]


@pytest.mark.slow
@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_imports_only_the_layers_below_it(package):
    wrong = sorted((name, dep) for name, deps in import_graph().items()
                   if name.split(".")[0] == package
                   for dep in deps if dep.split(".")[0] not in ALLOWED[package])
    assert not wrong, wrong


@pytest.mark.slow
@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_has_no_import_cycle(package):
    inside = {name: {d for d in deps if d.split(".")[0] == package}
              for name, deps in import_graph().items() if name.split(".")[0] == package}
    try:
        TopologicalSorter(inside).prepare()
    except CycleError as exc:
        pytest.fail(f"import cycle in {package}: {' -> '.join(exc.args[1])}")
