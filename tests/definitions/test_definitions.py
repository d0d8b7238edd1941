"""The Dagster definitions load, and everything in them is documented."""

import ast
from pathlib import Path

from dagster import AssetKey

from mnemo_dagster.definitions import build_defs, defs
from tests.support import REPO

REPO = REPO


def test_definitions_load_with_every_asset_documented() -> None:
    graph = defs.resolve_asset_graph()
    keys = list(graph.get_all_asset_keys())
    assert {k.to_user_string() for k in keys} >= {
        "documents", "chunks", "chunk_vectors", "extractions", "entity_graph", "entity_vectors",
    }
    for key in keys:
        node = graph.get(key)
        assert node.description, f"{key} has no description"
        assert node.group_name and node.group_name != "default", f"{key} has no group"
        assert node.kinds, f"{key} has no kinds"


def test_jobs_sensors_and_checks_are_documented() -> None:
    for job in defs.jobs or []:
        assert getattr(job, "description", None), f"job {job.name} has no description"
    for sensor in defs.sensors or []:
        assert sensor.description, f"sensor {sensor.name} has no description"
    checks = list(defs.resolve_asset_graph().asset_check_keys)
    assert len(checks) >= 4


def test_build_defs_accepts_test_resources(tmp_path: Path) -> None:
    from mnemo_dagster.resources import default_resources

    built = build_defs(default_resources(str(tmp_path / "mnemo.yaml")))
    assert built.resolve_job_def("ingest_job") is not None


def test_core_never_imports_dagster() -> None:
    offenders = []
    for folder in ("mnemo", "ontology"):
        for path in (REPO / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                if any(n == "dagster" or n.startswith("dagster") for n in names):
                    offenders.append(str(path.relative_to(REPO)))
    assert offenders == []


def test_no_future_annotations_in_dagster_modules() -> None:
    for folder in ("assets", "resources", "sensors", "jobs"):
        for path in (REPO / folder).rglob("*.py"):
            assert "from __future__ import annotations" not in path.read_text(encoding="utf-8"), path


def test_entity_communities_shows_the_llm_kind_only_when_an_llm_is_configured(tmp_path: Path) -> None:
    from mnemo_dagster.resources import default_resources

    def kinds(settings: str) -> set[str]:
        path = tmp_path / "mnemo.yaml"
        path.write_text(settings, encoding="utf-8")
        built = build_defs(default_resources(str(path)))
        return set(built.resolve_asset_graph().get(AssetKey("entity_communities")).kinds)

    assert "openai" not in kinds("data_dir: data\n")
    assert "openai" in kinds("data_dir: data\nllm: {base_url: 'http://127.0.0.1:9/v1', model: m}\n")
