"""The graph engine is a setting (`graph.engine`): a graph built by the other engine is refused with
a message to rebuild it, never opened; `mnemo doctor --rebuild-graph` makes it again from the
namespace's files with the configured engine, keeping the old graph until the new one is complete.
Each test runs on this run's engine, with the other one in processes of their own (the two cannot
share a process)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mnemo.config import load_config
from mnemo.errors import ConfigError, GraphEngineError
from mnemo.facts import GraphFacts
from mnemo.maintenance.dump import canonical_dump
from mnemo.stores.faults import FAULT_ENV
from mnemo.stores.graph import GraphStore
from mnemo.stores.graph_engine import built_with, engine_module
from ontology import load_ontology
from tests.support import REPO, Workspace, graph_engine, make_workspace

pytestmark = pytest.mark.graph


def _other(engine: str) -> str:
    return "ladybug" if engine == "kuzu" else "kuzu"


def _python(code: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})


def _mnemo(workspace: Workspace, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    code = "from mnemo.cli.main import app; app()"
    return _python(code, *args, "--namespace", "test", "--config", str(workspace.config_path), env=env)


def _set_engine(workspace: Workspace, engine: str) -> None:
    config = yaml.safe_load(workspace.config_path.read_text(encoding="utf-8"))
    config["graph"] = {"engine": engine}
    workspace.config_path.write_text(yaml.safe_dump(config), encoding="utf-8")


def test_an_unknown_engine_is_refused_naming_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "mnemo.yaml"
    path.write_text("graph:\n  engine: neo4j\n", encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert str(path) in str(refused.value) and "graph.engine" in str(refused.value)


def test_a_graph_the_other_engine_built_is_refused_with_a_rebuild_message_and_left_as_it_is(tmp_path: Path) -> None:
    path, engine = tmp_path / "graph.kuzu", graph_engine()
    made = _python("import sys; from pathlib import Path; from mnemo.stores.graph_engine import open_database\n"
                   "open_database(sys.argv[2], Path(sys.argv[1]), False, 0).close()", str(path), _other(engine))
    assert made.returncode == 0, made.stderr
    before = path.read_bytes()
    assert built_with(path) == _other(engine)
    store = GraphStore(path, load_ontology(), engine=engine)
    with pytest.raises(GraphEngineError, match=f"built with {_other(engine)}.*mnemo doctor --rebuild-graph"):
        store.apply(GraphFacts())
    with pytest.raises(GraphEngineError):
        store.counts()
    assert path.read_bytes() == before


def test_the_other_engine_is_refused_in_a_process_that_loaded_one(tmp_path: Path) -> None:
    engine = graph_engine()
    GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=engine).apply(GraphFacts())
    assert built_with(tmp_path / "graph.kuzu") == engine
    with pytest.raises(GraphEngineError, match=f"already loaded the {engine} graph engine"):
        engine_module(_other(engine))


@pytest.mark.slow
def test_switching_engine_is_a_rebuild_that_keeps_the_memory_and_the_old_graph_until_done(
    tmp_path: Path, small_vault: Path,
) -> None:
    engine, other = graph_engine(), _other(graph_engine())
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(small_vault)}]})
    workspace.ingest()
    data_dir, graph = workspace.config.data_dir, workspace.files().graph_path
    held = canonical_dump(data_dir, "test", load_ontology(), engine)
    _set_engine(workspace, other)

    found = _mnemo(workspace, "doctor")
    said = " ".join(found.stdout.split())  # the terminal wraps long paths
    assert found.returncode == 1 and f"was built with {engine}" in said and "--rebuild-graph" in said

    cut = _mnemo(workspace, "doctor", "--rebuild-graph", env={FAULT_ENV: "compaction:swap"})
    assert cut.returncode != 0 and "InjectedFault" in cut.stderr
    assert built_with(graph) == engine and canonical_dump(data_dir, "test", load_ontology(), engine) == held

    rebuilt = _mnemo(workspace, "doctor", "--rebuild-graph")
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert f"rebuilt the graph of test with {other} (it was built with {engine})" in " ".join(rebuilt.stdout.split())
    assert built_with(graph) == other and sorted(p.name for p in graph.parent.glob("graph.kuzu*")) == \
        sorted(p.name for p in graph.parent.glob("graph.kuzu*") if ".compact" not in p.name)
    dumped = _python("import json, sys; from pathlib import Path; from mnemo.maintenance.dump import canonical_dump\n"
                     "from ontology import load_ontology\n"
                     "print(json.dumps(canonical_dump(Path(sys.argv[1]), 'test', load_ontology(), sys.argv[2])))",
                     str(data_dir), other)
    assert dumped.returncode == 0, dumped.stderr
    assert json.loads(dumped.stdout) == json.loads(json.dumps(held))
