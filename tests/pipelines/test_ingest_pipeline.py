"""One ingest path: the graph an evaluation measures is the graph the ingest job gives users."""

from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.config import EmbedderConfig, SleepConfig
from mnemo.eval.notes import ingest_vault
from mnemo.pipelines.ingest import STEPS
from mnemo.recall.settings import RecallSettings
from mnemo.sleep.consolidate import consolidate
from mnemo.stores.embedders import build_embedder
from mnemo.stores.kept import graph_counts
from ontology import load_ontology
from tests.support import EXAMPLE_VAULT, graph_openings, make_workspace

NIGHT = datetime(2026, 11, 22, 3, tzinfo=UTC)
NAMESPACE = "notes"  # the namespace `ingest_vault` ingests a vault into


@pytest.mark.slow  # two ingests and a sleep each way: about 30 s on a busy machine
def test_the_evaluation_and_the_ingest_job_store_the_same_graph_after_a_sleep(tmp_path: Path) -> None:
    """The example vault ingested, consolidated by sleep mode and ingested again, once by the ingest
    job's assets and once by an evaluation's `ingest_vault`: the same graph (merges and sleep overlays
    kept by both) and the same entity vectors."""
    (tmp_path / "job").mkdir()
    job = make_workspace(tmp_path / "job", {NAMESPACE: [{"kind": "obsidian", "path": str(EXAMPLE_VAULT)}]})
    job.ingest(NAMESPACE)
    consolidate(job.files(NAMESPACE), job.graph(NAMESPACE), SleepConfig(), NIGHT)
    job.ingest(NAMESPACE)

    def evaluation() -> None:
        ingest_vault(EXAMPLE_VAULT, "obsidian", tmp_path / "eval", build_embedder(EmbedderConfig(kind="hashing")),
                     load_ontology(), RecallSettings())

    evaluation()
    evaluated = make_workspace(tmp_path / "eval", {NAMESPACE: []})  # the same data folder, read only
    consolidate(evaluated.files(NAMESPACE), evaluated.graph(NAMESPACE), SleepConfig(), NIGHT)
    evaluation()

    found, expected = evaluated.graph(NAMESPACE).dump(), job.graph(NAMESPACE).dump()
    assert expected["Community"] and expected["Summary"]  # the sleep overlays are there to keep
    assert {t: len(r) for t, r in found.items()} == {t: len(r) for t, r in expected.items()}
    assert found == expected
    assert evaluated.vectors(NAMESPACE).dump("entities") == job.vectors(NAMESPACE).dump("entities")


def test_an_evaluation_says_which_steps_ran(tmp_path: Path) -> None:
    (tmp_path / "w").mkdir()
    workspace = make_workspace(tmp_path / "w", {"test": [{"kind": "obsidian", "path": str(EXAMPLE_VAULT)}]})
    ran = workspace.pipeline().run()
    assert list(ran.steps) == ["forget", "documents", "chunks", "chunk_vectors", "extractions", "entity_vectors",
                               "llm_extractions", "entity_graph"]
    assert ran.steps["llm_extractions"] == "no LLM configured: no LLM facts"
    files = workspace.files()
    assert ran.counts["documents"] == len(files.read_documents())
    assert ran.counts["problems"] == len({p["path"] for p in files.read_problems()}) > 0  # the vault's broken files


def test_the_graph_step_opens_the_graph_once_and_keeps_its_counts_for_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "w").mkdir()
    workspace = make_workspace(tmp_path / "w", {"test": [{"kind": "obsidian", "path": str(EXAMPLE_VAULT)}]})
    pipeline = workspace.pipeline()
    for step in STEPS[:-1]:
        getattr(pipeline, step)()
    openings = graph_openings(monkeypatch)
    written = pipeline.entity_graph()
    assert written.stats.writes and openings == [False]  # written and counted on one opening
    kept = graph_counts(pipeline.graph.path, lambda: pytest.fail("the graph was counted again"))
    assert kept == pipeline.graph.counts() and kept["Note"] > 0
