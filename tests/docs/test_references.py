"""Every file, module and function the docs and the docstrings name exists.

Read: docs/*.md, README.md, and the docstrings and comments of every Python file of the tree.
- A repository path (`mnemo/recall/rank.py`, tests/stores/test_minilm.py, `docs/RECALL.md`)
  must be a file or folder of the checkout.
- A dotted name in backticks (`rank.linear_ranked`, `mnemo.recall.rank`, `MemoryClient.recall`)
  must resolve in the source: its first part a module (full or last part of its name) or a class,
  the rest names defined there; or be a mnemo.yaml setting (`sleep.cron`). A dotted name whose
  first part is nothing of the tree is read as code only when what follows is a name the tree
  defines (recall_sleep.eager_ranked: a module that moved); otherwise it is a library's (`dg.asset`)."""

import ast
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import get_args

from pydantic import BaseModel

from mnemo.config import MnemoConfig
from tests.support import REPO

PYTHON_ROOTS = ("mnemo", "ontology", "benchmarks", "scripts", "tests")
SHELL = ("assets", "resources", "sensors", "jobs", "shards")  # installed as mnemo_dagster.<name>
TOP = ("mnemo", "assets", "resources", "sensors", "jobs", "shards", "tests", "benchmarks", "scripts", "docs",
       "ontology", "examples", "deploy", "mnemo_dagster")
PATH = re.compile(rf"(?<![\w/.])(?:{'|'.join(TOP)})/[\w./-]*\w/?")
DOTTED = re.compile(r"`([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?`")
FILE_SUFFIXES = {"py", "md", "yaml", "yml", "json", "jsonl", "toml", "txt", "tsv", "csv", "zip", "edn", "html",
                 "db", "parquet", "lance", "kuzu", "lock", "tmp", "sh", "log", "com", "org", "io", "safetensors", "whl", "png", "npy"}
# generated or user-side paths the docs name on purpose (outputs, examples of a user's own files)
MADE_BY_RUNS = ("benchmarks/out/", "benchmarks/results/", "tests/data/", "examples/")


@dataclass
class Module:
    names: set[str] = field(default_factory=set)  # top-level definitions and imports
    members: dict[str, set[str]] = field(default_factory=dict)  # class -> its methods and attributes


def _members(node: ast.ClassDef) -> set[str]:
    found = set()
    for item in ast.walk(node):
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(item.name)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            found.add(item.target.id)
        elif isinstance(item, ast.Assign | ast.AnnAssign):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            found |= {t.id for t in targets if isinstance(t, ast.Name)}
            found |= {t.attr for t in targets if isinstance(t, ast.Attribute)}
    return found


def _module(tree: ast.Module) -> Module:
    module = Module()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            module.names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            module.names.add(node.name)
            module.members[node.name] = _members(node)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            module.names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            module.names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return module


def _python_files() -> list[Path]:
    roots = [REPO / root for root in (*PYTHON_ROOTS, *SHELL)]
    return sorted({REPO / "definitions.py", REPO / "mnemo_dagster" / "__init__.py",
                   *(p for root in roots for p in root.rglob("*.py") if "__pycache__" not in p.parts)})


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    if parts[0] in SHELL or parts == ("definitions",):
        parts = ("mnemo_dagster", *parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _tree() -> dict[str, Module]:
    """Every module of the tree by dotted name (a package by its own name and by its __init__)."""
    modules = {}
    for path in _python_files():
        name = _module_name(path)
        modules[name] = _module(ast.parse(path.read_text(encoding="utf-8")))
        parts = name.split(".")
        for package in (".".join(parts[:i]) for i in range(1, len(parts))):
            modules.setdefault(package, Module())
    return modules


@cache
def _by_short_name() -> dict[str, list[str]]:
    short = defaultdict(list)
    for name in _tree():
        short[name.rsplit(".", 1)[-1]].append(name)
    return short


@cache
def _classes() -> dict[str, list[set[str]]]:
    found = defaultdict(list)
    for module in _tree().values():
        for cls, members in module.members.items():
            found[cls].append(members)
    return found


@cache
def _defined() -> set[str]:
    return {n for m in _tree().values() for n in m.names} | set(_tree()) | set(_by_short_name())


@cache
def settings() -> set[str]:
    """Every mnemo.yaml setting by its dotted path (`sleep.cron`, `llm.concurrency`)."""
    found: set[str] = set()

    def walk(model: type[BaseModel], prefix: str) -> None:
        for name, info in model.model_fields.items():
            found.add(prefix + name)
            for kind in (info.annotation, *get_args(info.annotation)):  # `LLMConfig | None` too
                if isinstance(kind, type) and issubclass(kind, BaseModel):
                    walk(kind, f"{prefix}{name}.")

    walk(MnemoConfig, "")
    return found


def _resolves_in(module: str, rest: list[str]) -> bool:
    tree = _tree()
    if rest and f"{module}.{rest[0]}" in tree:
        return _resolves_in(f"{module}.{rest[0]}", rest[1:])
    found = tree[module]
    if not rest:
        return True
    if rest[0] not in found.names:
        return any(rest[0] in members for members in found.members.values())  # `config.data_dir`
    return len(rest) == 1 or rest[0] not in found.members or rest[1] in found.members[rest[0]]


def unresolved(dotted: str) -> bool:
    """True when `dotted` reads as a reference into the tree that does not resolve."""
    first, *rest = dotted.split(".")
    if rest[-1] in FILE_SUFFIXES or dotted in settings():
        return False
    if first in _tree() or first in _by_short_name():
        candidates = [first] if first in _tree() else _by_short_name()[first]
        return not any(_resolves_in(m, rest) for m in candidates)
    if first in _classes():
        return not any(rest[0] in members for members in _classes()[first])
    return rest[0] in _defined() and first[0].islower() and "_" in first  # a module name that moved


def _docstrings_and_comments(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    found = [ast.get_docstring(n, clean=False) or "" for n in ast.walk(ast.parse(text))
             if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)]
    return "\n".join(found + re.findall(r"#[^\n]*", text))


def _texts() -> dict[str, str]:
    docs = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]
    texts = {str(p.relative_to(REPO)): p.read_text(encoding="utf-8") for p in docs}
    texts |= {str(p.relative_to(REPO)): _docstrings_and_comments(p) for p in _python_files()}
    return texts


def test_every_path_named_exists() -> None:
    named = [(where, path) for where, text in _texts().items() for path in PATH.findall(text)
             if path.endswith("/") or "." in path.rsplit("/", 1)[-1]]  # not a tag such as mnemo/namespace
    missing = [f"{where}: {path}" for where, path in named
               if not path.startswith(MADE_BY_RUNS) and not (REPO / path.rstrip(".")).exists()]
    assert missing == []


def test_every_module_and_function_named_resolves() -> None:
    broken = [f"{where}: {name}" for where, text in _texts().items() for name in DOTTED.findall(text)
              if unresolved(name)]
    assert broken == []


def test_the_checker_finds_a_moved_module_and_a_missing_function() -> None:
    assert unresolved("recall_sleep.eager_ranked")  # eager_ranked is defined, in another module
    assert unresolved("rank.no_such_function") and unresolved("mnemo.recall.rank.no_such_function")
    assert not unresolved("mnemo.recall.rank") and not unresolved("dg.asset") and not unresolved("mnemo.yaml")
