"""What the tests share: the repository's paths, the real corpora (skipped when absent), and a
workspace of temp folders with its own config and Dagster instance."""

import os
import signal
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest
import yaml

from mnemo.client import MemoryClient
from mnemo.config import load_config
from mnemo.pipelines.ingest import IngestPipeline
from mnemo.recall.settings import RecallSettings
from mnemo.stores.embedders import build_embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import default_resources
from ontology import load_ontology


def interruptible() -> None:
    """A test process started with SIGINT ignored (a shell's background job) handles it as Python
    does by default. Dagster gives SIGTERM SIGINT's handler around an in-process run and leaves it
    so: with SIGINT ignored, SIGTERM ends up ignored too, the `tail -F` processes its compute-log
    capture starts afterwards inherit that, and they outlive the tests (it stops them with SIGTERM)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
EXAMPLE_VAULT = REPO / "examples" / "vault"
SHARED = Path(os.environ.get("MNEMO_SHARED", REPO.parent / "shared"))
CORPORA = SHARED / "corpora"
# the graph engine the tests' stores and workspaces use: `pytest --graph-engine ladybug` sets it
GRAPH_ENGINE_ENV = "MNEMO_TEST_GRAPH_ENGINE"


def graph_engine() -> str:
    """The graph engine this test run uses (Kùzu unless `--graph-engine` names another)."""
    return os.environ.get(GRAPH_ENGINE_ENV, "kuzu")


def graph_openings(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The read_only flag of every opening of a graph database from here on."""
    seen: list[bool] = []
    real = GraphStore._open

    def counted(self: GraphStore, read_only: bool):  # noqa: ANN202 - returns what the engine returns
        seen.append(read_only)
        return real(self, read_only)
    monkeypatch.setattr(GraphStore, "_open", counted)
    return seen


def corpus(*parts: str) -> Path:
    """A path in ../shared/corpora; the test is skipped when it is absent."""
    path = CORPORA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real corpus not available: {path}")
    return path


@dataclass
class Workspace:
    """A temporary mnemo setup: a config file, a data dir, sources, and a Dagster instance."""

    root: Path
    config_path: Path
    instance: dg.DagsterInstance

    @property
    def config(self):  # noqa: ANN201 - MnemoConfig
        return load_config(self.config_path)

    def files(self, namespace: str = "test") -> NamespaceFiles:
        return NamespaceFiles(self.config.data_dir, namespace)

    def graph(self, namespace: str = "test") -> GraphStore:
        return GraphStore(self.files(namespace).graph_path, load_ontology(), engine=self.config.graph.engine)

    def vectors(self, namespace: str = "test") -> VectorStore:
        return VectorStore(self.files(namespace).vectors_path)

    def pipeline(self, namespace: str = "test") -> IngestPipeline:
        """The namespace's ingest pipeline outside Dagster, as the evaluations run it."""
        config = self.config
        return IngestPipeline.of(config, namespace, load_ontology(), build_embedder(config.embedder))

    def ingest(self, namespace: str = "test") -> dg.ExecuteInProcessResult:
        if namespace not in self.instance.get_dynamic_partitions("namespace"):
            self.instance.add_dynamic_partitions("namespace", [namespace])
        defs = build_defs(default_resources(str(self.config_path)))
        result = defs.resolve_job_def("ingest_job").execute_in_process(partition_key=namespace, instance=self.instance)
        assert result.success
        return result

    def metadata(self, result: dg.ExecuteInProcessResult, asset: str) -> dict[str, object]:
        for event in result.get_asset_materialization_events():
            materialization = event.step_materialization_data.materialization
            if materialization.asset_key.to_user_string() == asset:
                return {k: v.value for k, v in materialization.metadata.items()}
        raise KeyError(asset)


def steady_client(workspace: Workspace, namespace: str = "test") -> MemoryClient:
    """A client on the workspace whose recall mixes in no random salient items, so results repeat."""
    return MemoryClient(namespace, workspace.config_path, settings=RecallSettings(random_share=0.0))


def configured(workspace: Workspace, namespace: str) -> Workspace:
    """The workspace with `namespace` in its mnemo.yaml (no sources) when it was not there: a
    namespace exists only when configured."""
    config = yaml.safe_load(workspace.config_path.read_text(encoding="utf-8"))
    if namespace not in config["namespaces"]:
        config["namespaces"][namespace] = {"sources": []}
        workspace.config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return workspace


def make_workspace(root: Path, sources: dict[str, list[dict[str, str]]], embedder: str = "hashing") -> Workspace:
    config = {
        "data_dir": str(root / "data"),
        "namespaces": {ns: {"sources": srcs} for ns, srcs in sources.items()},
        "embedder": {"kind": embedder},
        **({"graph": {"engine": graph_engine()}} if graph_engine() != "kuzu" else {}),
    }
    path = root / "mnemo.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return Workspace(root, path, dg.DagsterInstance.ephemeral())


def daily_notes_workspace(root: Path, days: dict[str, str], folder: str = "vault") -> tuple[Workspace, Path]:
    """A vault of daily notes (`Daily/<day>.md` holding each day's text), ingested as namespace `test`."""
    vault = root / folder
    (vault / "Daily").mkdir(parents=True)
    for day, text in days.items():
        (vault / "Daily" / f"{day}.md").write_text(text + "\n", encoding="utf-8")
    workspace = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    return workspace, vault
