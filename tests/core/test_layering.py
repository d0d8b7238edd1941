"""The core's packages depend on each other in one direction: no import cycle between them.

Every import in every module of `mnemo/` (function-level ones too) is mapped to the package
(or top-level module) it names; the graph of those must have no cycle.

And the stores own their engines: outside `mnemo/stores/`, no module (of `mnemo/` or of the Dagster
folders) imports Kùzu, LanceDB or LadybugDB, takes a name of the stores that hands out the engine or
its query language, holds a Cypher string or calls a LanceDB table's methods."""

import ast
import re
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


# -- the stores own their engines --------------------------------------------------------------

SHELL = ("mnemo", "assets", "resources", "sensors", "jobs", "shards")
ENGINES = ("kuzu", "lancedb", "ladybug")
# names of mnemo.stores that hand their caller the engine itself or a piece of its query language
ENGINE_NAMES = {"mnemo.stores.cypher", "mnemo.stores.vectors.sql_quote", "mnemo.stores.vectors.id_filter",
                "mnemo.stores.vectors.import_lancedb"}
PRELOADS = {"shards/worker.py"}  # imports LanceDB before a worker forks, and never opens a table
# methods of LanceDB's tables and queries: a caller holding one holds the engine
LANCE_CALLS = {"to_arrow", "with_row_id", "take_row_ids", "count_rows", "merge_insert", "create_fts_index",
               "create_scalar_index", "list_indices", "index_stats", "optimize", "metric", "distance_type",
               "create_table", "table"}
CYPHER = re.compile(
    r"\b(?:OPTIONAL\s+)?MATCH\s*\(|\b(?:MERGE|CREATE)\s*\(|\bCALL\s+\w+\s*\(|\bRETURN\s+(?:DISTINCT\s+)?[a-z*]"
)


def _literals(tree: ast.AST) -> list[str]:
    """Every string literal, and the literal parts of every f-string."""
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _method_calls(tree: ast.AST) -> set[str]:
    return {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}


def _imported(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def engine_leaks(root: Path) -> dict[str, list[str]]:
    """File (relative to root) -> what in it reaches past mnemo/stores/: an import of a database
    engine, a name of the stores that hands out the engine or its query language, a Cypher string."""
    leaks: dict[str, list[str]] = {}
    files = [p for top in SHELL for p in sorted((root / top).rglob("*.py"))] + sorted(root.glob("*.py"))
    for path in files:
        name = path.relative_to(root).as_posix()
        if name.startswith("mnemo/stores/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports = _imported(tree)
        found = sorted(m for m in imports if m.split(".")[0] in ENGINES)
        found += sorted(m for m in imports & ENGINE_NAMES if not (name in PRELOADS and m.endswith("import_lancedb")))
        found += [f"Cypher: {text[:60]!r}" for text in _literals(tree) if CYPHER.search(text)]
        found += sorted({f"LanceDB .{c}()" for c in _method_calls(tree) & LANCE_CALLS})
        if found:
            leaks[name] = found
    return leaks


def test_only_the_stores_touch_the_engines() -> None:
    assert engine_leaks(REPO) == {}


def test_an_engine_leak_is_found(tmp_path: Path) -> None:
    (tmp_path / "mnemo" / "stores").mkdir(parents=True)
    (tmp_path / "assets").mkdir()
    (tmp_path / "mnemo" / "stores" / "graph.py").write_text('import kuzu\nQ = "MATCH (n:Note) RETURN n.id"\n')
    (tmp_path / "assets" / "a.py").write_text('import lancedb.rerankers\n')
    (tmp_path / "mnemo" / "b.py").write_text(
        'from mnemo.stores.vectors import sql_quote\ndef f(t):\n    return f"MATCH (n:{t}) RETURN n.id"\n')
    (tmp_path / "mnemo" / "c.py").write_text('"""Match (a note) to what it returns."""\nX = "RETURN: nothing"\n')
    (tmp_path / "mnemo" / "d.py").write_text('def rows(store):\n    return store.table("chunks").search().to_arrow()\n')
    assert engine_leaks(tmp_path) == {
        "assets/a.py": ["lancedb.rerankers"],
        "mnemo/b.py": ["mnemo.stores.vectors.sql_quote", "Cypher: 'MATCH (n:'", "Cypher: ') RETURN n.id'"],
        "mnemo/d.py": ["LanceDB .table()", "LanceDB .to_arrow()"],
    }
