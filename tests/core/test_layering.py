"""The core's packages depend on each other in one direction: no import cycle between them.

Every import in every module of `mnemo/` (function-level ones too) is mapped to the package
(or top-level module) it names; the graph of those must have no cycle."""

import ast
from collections import defaultdict
from pathlib import Path

from tests.support import REPO

CORE = REPO / "mnemo"


def _unit(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "mnemo" and len(parts) > 1 else None


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {f"{node.module}.{a.name}" for a in node.names} if node.module == "mnemo" else {node.module}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def package_graph(root: Path) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for path in root.rglob("*.py"):
        own = path.relative_to(root.parent).with_suffix("").parts
        me = own[1] if len(own) > 1 else None
        for module in _imports(path):
            other = _unit(module)
            if me and other and other != me:
                edges[me].add(other)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_core_packages() -> None:
    edges = package_graph(CORE)
    assert "recall" in edges and "stores" in edges["recall"]  # the graph is really read
    assert cycles(edges) == []


def test_a_cycle_is_found(tmp_path: Path) -> None:
    core = tmp_path / "mnemo"
    for package, imported in (("a", "mnemo.b.x"), ("b", "mnemo.a.y")):
        (core / package).mkdir(parents=True)
        (core / package / "m.py").write_text(f"def f():\n    import {imported}\n")
    assert cycles(package_graph(core)) == [["a", "b"]]
