"""The runs one set of definitions executes in its process share what they read of a namespace."""

from pathlib import Path

import dagster as dg

from mnemo.stores.session import Sessions
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import MnemoConfigResource, default_resources
from tests.support import Workspace


def _ingested(workspace: Workspace) -> tuple[dg.JobDefinition, MnemoConfigResource]:
    """The ingest job of one set of definitions, run once, and their config resource."""
    workspace.instance.add_dynamic_partitions("namespace", ["test"])
    resources = default_resources(str(workspace.config_path))
    job = build_defs(resources).resolve_job_def("ingest_job")
    assert job.execute_in_process(partition_key="test", instance=workspace.instance).success
    config = resources["mnemo_config"]
    assert isinstance(config, MnemoConfigResource)
    return job, config


def test_a_second_run_in_the_process_reuses_the_documents_the_first_one_parsed(workspace: Workspace) -> None:
    job, config = _ingested(workspace)
    root = workspace.files().root
    kept = config.sessions.of(root).entry(root / "documents.parquet")
    assert kept is not None  # what the run parsed and wrote is kept by the definitions' resource
    assert job.execute_in_process(partition_key="test", instance=workspace.instance).success
    again = config.sessions.of(root).entry(root / "documents.parquet")
    assert again is not None and again[1] is kept[1]  # the second run took it as it was: nothing changed


def test_a_changed_file_is_read_again_by_the_next_run(workspace: Workspace, vault: Path) -> None:
    job, config = _ingested(workspace)
    note = vault / "People" / "Dana Kim.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nDana now keeps bees.\n", encoding="utf-8")
    assert job.execute_in_process(partition_key="test", instance=workspace.instance).success
    texts = [d.body for d in config.files("test").read_documents() if d.path.endswith("Dana Kim.md")]
    assert texts and "keeps bees" in texts[0]


def test_sessions_keep_one_session_per_namespace_and_only_the_most_recently_used(tmp_path: Path) -> None:
    sessions = Sessions(limit=2)
    a, b = sessions.of(tmp_path / "a"), sessions.of(tmp_path / "b")
    assert sessions.of(tmp_path / "a") is a  # a is now the most recently used
    sessions.of(tmp_path / "c")
    assert sessions.of(tmp_path / "a") is a and sessions.of(tmp_path / "b") is not b
    sessions.drop(tmp_path / "a")
    assert sessions.of(tmp_path / "a") is not a
