"""Fixtures shared by every test; the helpers behind them are in `tests.support`."""

import os
import shutil
from pathlib import Path

import pytest
import yaml

from tests.support import EXAMPLE_VAULT, GRAPH_ENGINE_ENV, Workspace, interruptible, make_workspace

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
interruptible()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--graph-engine", choices=("kuzu", "ladybug"), default=None,
                     help="the graph engine of the tests' stores (default kuzu); `make test` runs `-m graph` on both")


def pytest_configure(config: pytest.Config) -> None:
    """The chosen engine reaches every store a test makes, and the processes it starts, through the environment."""
    engine = config.getoption("--graph-engine")
    if engine:
        os.environ[GRAPH_ENGINE_ENV] = engine


_DAGSTER_NAMES = {"dg", "dagster", "build_defs", "Workspace", "make_workspace"}
_DAGSTER_FIXTURES = {"workspace", "ingested", "assist_workspace"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark what each test needs, so a developer can run a part (`-m "not corpora"`). The
    many-machine tests (marker `shards`, services started by the test) run only when the `-m`
    expression names them (`make test-shards`), never in `make test` or `-m dagster`; so do the
    tests against a real model server (marker `llm`, `make test-llm`)."""
    for marker in ("shards", "llm"):
        if marker not in (config.getoption("markexpr") or ""):
            named = [item for item in items if item.get_closest_marker(marker)]
            if named:
                config.hook.pytest_deselected(items=named)
                items[:] = [item for item in items if not item.get_closest_marker(marker)]
    for item in items:
        names = set(vars(item.module)) if isinstance(item, pytest.Function) and item.module else set()
        if names & {"corpus", "CORPORA"}:
            item.add_marker(pytest.mark.corpora)
        if names & _DAGSTER_NAMES or _DAGSTER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.dagster)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A private copy of the example vault."""
    target = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, target)
    return target


@pytest.fixture
def small_vault(tmp_path: Path) -> Path:
    """A few notes of the example vault: two people and two daily notes (fast to ingest)."""
    target = tmp_path / "small_vault"
    for rel in ("People/Sam Rivera.md", "People/Dana Kim.md", "Daily/2026-09-01.md", "Daily/2026-09-03.md"):
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(EXAMPLE_VAULT / rel, target / rel)
    return target


@pytest.fixture
def workspace(tmp_path: Path, vault: Path) -> Workspace:
    """A workspace whose namespace `test` reads the copied example vault (hashing embedder)."""
    return make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})


@pytest.fixture(scope="session")
def assist_workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """The example vault ingested once (namespace `test`, self Sam Rivera) for the hooks, MCP and API tests."""
    root = tmp_path_factory.mktemp("assist")
    shutil.copytree(EXAMPLE_VAULT, root / "vault")
    workspace = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(root / "vault")}]})
    config = yaml.safe_load(workspace.config_path.read_text(encoding="utf-8"))
    config["namespaces"]["test"]["self"] = "Sam Rivera"
    workspace.config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
    workspace.ingest()
    return workspace
