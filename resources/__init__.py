"""Dagster resources: the only things that touch files, stores, models and endpoints."""


import os
from pathlib import Path
from typing import cast

import dagster as dg
from pydantic import Field, PrivateAttr

from mnemo.config import ConfigFile, EmbedderConfig, LLMConfig, MnemoConfig, resolve_config_path
from mnemo.extract.llm import LLMExtractor
from mnemo.ingest.embedder_choice import choose_for_documents, embedder_settings, namespace_embedder_settings
from mnemo.stores.embedders import Embedder, build_embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.session import Sessions
from mnemo.stores.vectors import VectorStore
from mnemo.writeback.run import WritebackPlan, WritebackReport, writeback_namespace
from mnemo_dagster.resources.run_recovery import end_guard, guard_run
from ontology import Ontology, load_ontology


def _new_sessions() -> dg.ResourceDependency[Sessions]:
    """A registry of sessions, as the resource's field holds it (Dagster hands the value out as is)."""
    return cast(dg.ResourceDependency[Sessions], Sessions())


class MnemoConfigResource(dg.ConfigurableResource):
    """The mnemo.yaml configuration (path: this field, else $MNEMO_CONFIG, else ./mnemo.yaml)."""

    config_path: str = ""
    ontology_path: str = ""
    # what the runs of this resource's process read, by namespace (a field, so every run of the
    # definitions shares it; a private attribute starts empty in each run)
    sessions: dg.ResourceDependency[Sessions] = Field(default_factory=_new_sessions)
    _file: ConfigFile | None = PrivateAttr(default=None)

    def path(self) -> Path:
        return resolve_config_path(self.config_path or None)

    def load(self) -> MnemoConfig:
        """The configuration, parsed again only when the file changed."""
        if self._file is None:
            self._file = ConfigFile(self.config_path or None)
        return self._file.load()

    def ontology(self) -> Ontology:
        return load_ontology(self.ontology_path or None)

    def files(self, namespace: str) -> NamespaceFiles:
        """The namespace's files, on its shard's data root; a worker of another shard refuses it. The
        steps of a run, and the runs after it in this process, share one session of the namespace
        (what they read, parsed once per version of its files)."""
        files = namespace_files(self.load(), namespace)
        files.session = self.sessions.of(files.root)
        return files


def namespace_files(config: MnemoConfig, namespace: str) -> NamespaceFiles:
    """The namespace's files, on its shard's data root; a process of another shard refuses it
    (MisplacedNamespace)."""
    config.check_holds(namespace)
    return NamespaceFiles(config.data_root(namespace), namespace)


class RunGuardedResource(dg.ConfigurableResource):
    """A resource a run sets up before its first step: the run then frees what runs whose process
    died still hold, and is watched until it ends (resources/run_recovery.py)."""

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        released = guard_run(context.instance, context.run.run_id if context.run else None)
        log = context.log
        if log is None:
            return
        for run_id in released:
            log.warning(f"run {run_id}: its process is gone; marked failed and its pool slots freed")

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        end_guard(context.run.run_id if context.run else None)


class GraphResource(RunGuardedResource):
    """The namespace's graph database, on `graph.engine` (opened per unit of work)."""

    config: MnemoConfigResource

    def store(self, namespace: str) -> GraphStore:
        settings = self.config.load()
        path = namespace_files(settings, namespace).graph_path
        return GraphStore(path, self.config.ontology(), engine=settings.graph.engine)


class VectorResource(RunGuardedResource):
    """The namespace's LanceDB tables."""

    config: MnemoConfigResource

    def store(self, namespace: str) -> VectorStore:
        settings = self.config.load()
        return VectorStore(namespace_files(settings, namespace).vectors_path, settings.vector_index)


class EmbedderResource(RunGuardedResource):
    """The embedding model named by the configuration (packaged MiniLM by default)."""

    config: MnemoConfigResource
    _embedders: dict[str, Embedder] = PrivateAttr(default_factory=dict)

    def embedder(self, namespace: str | None = None) -> Embedder:
        """The namespace's embedder (mnemo.yaml's `embedder:`, else its recorded choice); without one, mnemo.yaml's."""
        config = self.config.load()
        if namespace is None:
            return self._built(config.embedder)
        return self._built(namespace_embedder_settings(config, self.config.files(namespace).root))

    def choose(self, namespace: str) -> Embedder:
        """Choose the namespace's embedder from the languages of its documents, record the choice, return it."""
        config, files = self.config.load(), self.config.files(namespace)
        choice = choose_for_documents(config, files.root, files.read_documents)
        return self._built(embedder_settings(config, choice))

    def _built(self, settings: EmbedderConfig) -> Embedder:
        key = settings.model_dump_json()
        if key not in self._embedders:
            self._embedders[key] = build_embedder(settings)
        return self._embedders[key]


class NoteWriterResource(RunGuardedResource):
    """Writes insights into the namespace's notes, only under the write-back key, journaled."""

    config: MnemoConfigResource

    def write_back(self, namespace: str, run: str, today: str | None = None) -> tuple[WritebackPlan, WritebackReport]:
        return writeback_namespace(self.config.load(), namespace, self.config.ontology(), run=run, today=today)


class LLMResource(RunGuardedResource):
    """The OpenAI-compatible LLM endpoint of mnemo.yaml's `llm:`; without it, nothing is called."""

    config: MnemoConfigResource

    def settings(self) -> LLMConfig | None:
        return self.config.load().llm

    def extractor(self, ontology: Ontology) -> LLMExtractor | None:
        """An extractor for the configured endpoint (its API key read from `api_key_env`)."""
        settings = self.settings()
        if settings is None:
            return None
        return LLMExtractor(settings, ontology, os.environ.get(settings.api_key_env, ""))


def default_resources(config_path: str = "", ontology_path: str = "") -> dict[str, dg.ConfigurableResource]:
    """The resource set the ingest assets need, all reading one configuration file."""
    config = MnemoConfigResource(config_path=config_path, ontology_path=ontology_path)
    return {
        "mnemo_config": config,
        "graph": GraphResource(config=config),
        "vectors": VectorResource(config=config),
        "embedder": EmbedderResource(config=config),
        "note_writer": NoteWriterResource(config=config),
        "llm": LLMResource(config=config),
    }
