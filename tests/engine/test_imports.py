"""The engine's modules import one another one way: no cycle, and no import hidden in a
function to dodge one (DESIGN.md: the turn machinery sits below the rule modules)."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ENGINE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in ENGINE.rglob("*.py")}


def _imports(node: ast.AST, package: str) -> list[tuple[str, ast.stmt]]:
    """Engine modules imported anywhere under ``node``, with the statement importing each."""
    out: list[tuple[str, ast.stmt]] = []
    for stmt in ast.walk(node):
        if isinstance(stmt, ast.Import):
            out += [(a.name, stmt) for a in stmt.names if a.name in MODULES]
        elif isinstance(stmt, ast.ImportFrom):
            base = stmt.module or ""
            if stmt.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - stmt.level + 1])
                base = f"{base}.{stmt.module}" if stmt.module else base
            for alias in stmt.names:
                name = f"{base}.{alias.name}"
                if name in MODULES:
                    out.append((name, stmt))
                elif base in MODULES:
                    out.append((base, stmt))
    return out


def _tree(name: str) -> ast.Module:
    return ast.parse(MODULES[name].read_text(), filename=str(MODULES[name]))


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = {dep for dep, _ in _imports(_tree(name), package) if dep != name}
    return graph


@pytest.mark.slow
def test_the_engine_has_no_import_cycle() -> None:
    graph = import_graph()
    assert "engine.state" in graph["engine.modules.stations"]  # the graph sees imports
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as e:
        raise AssertionError(f"import cycle in the engine: {' -> '.join(e.args[1])}") from e


@pytest.mark.slow
def test_rule_modules_do_not_import_the_dispatcher() -> None:
    graph = import_graph()
    for name, deps in graph.items():
        if name.startswith("engine.modules."):
            assert "engine.game" not in deps, name


def test_no_engine_import_inside_a_function() -> None:
    hidden = []
    for name in MODULES:
        for node in ast.walk(_tree(name)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                hidden += [f"{name}:{s.lineno}" for _, s in _imports(node, name)]
    assert hidden == []
