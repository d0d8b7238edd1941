"""`mnemo ingest` runs the ingest job on the project's Dagster instance (the run is recorded there),
shows each step as it ends, sums up what changed with the problem files named, and exits non-zero
when the run fails."""

import json
import shutil
from pathlib import Path

import dagster as dg
import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from tests.support import EXAMPLE_VAULT, make_workspace

runner = CliRunner()


@pytest.fixture
def vault_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    vault = shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault")
    return make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]}).config_path


def _ingest(config: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["ingest", "--config", str(config), *args])
    return result.exit_code, result.stdout if "--json" in args else result.output


def _instance(home: Path) -> dg.DagsterInstance:
    return dg.DagsterInstance.from_config(str(home))


def _rows(out: str) -> dict[str, list[str]]:
    """The summary table's rows: first cell -> the other cells."""
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if len(cells) > 1:
            rows[cells[0]] = cells[1:]
    return rows


def test_the_run_is_recorded_in_the_project_instance_and_summed_up(vault_config: Path) -> None:
    code, out = _ingest(vault_config)
    assert code == 0, out
    home = vault_config.parent / ".dagster"
    assert (home / "dagster.yaml").resolve() == (Path(__file__).parents[2] / "dagster.yaml").resolve()
    instance = _instance(home)
    [record] = instance.get_run_records()
    assert record.dagster_run.status == dg.DagsterRunStatus.SUCCESS
    assert record.dagster_run.tags["mnemo/namespace"] == "test"
    stored = instance.get_latest_materialization_event(dg.AssetKey("documents"))
    assert stored is not None and stored.run_id == record.dagster_run.run_id
    metadata = stored.asset_materialization.metadata  # type: ignore[union-attr]
    for step in ("documents", "chunks", "chunk_vectors", "extractions", "entity_graph", "entity_vectors"):
        assert f"test {step} done in" in out
    rows = _rows(out)
    assert rows["documents"] == [str(metadata["documents"].value)] and rows["new"] == rows["documents"]
    chunks = instance.get_latest_materialization_event(dg.AssetKey("chunks"))
    assert rows["passages"] == [str(chunks.asset_materialization.metadata["chunks"].value)]  # type: ignore[union-attr]
    assert int(rows["problem files"][0]) == metadata["problems"].value > 0
    assert "test: People/Jonas Weber.md: frontmatter opens with '---' but is never closed" in " ".join(out.split())


def test_a_second_run_counts_changed_and_deleted_documents(vault_config: Path) -> None:
    assert _ingest(vault_config)[0] == 0
    vault = vault_config.parent / "vault"
    note = next(vault.rglob("*.md"))
    note.write_text(note.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    (vault / "Projects" / "Project Heron.md").unlink()
    code, out = _ingest(vault_config, "--json")
    assert code == 0, out
    [outcome] = json.loads(out)
    documents = outcome["metadata"]["documents"]
    assert (documents["new"], documents["changed"], documents["deleted"]) == (0, 1, 1)
    assert outcome["success"] and {p["path"] for p in outcome["problem_files"]} >= {"People/Jonas Weber.md"}


def test_a_failed_run_exits_non_zero_naming_the_run(vault_config: Path) -> None:
    text = vault_config.read_text(encoding="utf-8")
    blocker = vault_config.parent / "not-a-folder"
    blocker.write_text("a file where the data folder should be", encoding="utf-8")
    vault_config.write_text(text.replace(str(vault_config.parent / "data"), str(blocker)), encoding="utf-8")
    code, out = _ingest(vault_config)
    assert code == 1
    [record] = _instance(vault_config.parent / ".dagster").get_run_records()
    assert record.dagster_run.status == dg.DagsterRunStatus.FAILURE
    assert f"the ingest run for 'test' failed (run {record.dagster_run.run_id})" in " ".join(out.split())


def test_an_unknown_namespace_is_refused(vault_config: Path) -> None:
    code, out = _ingest(vault_config, "nobody")
    assert code == 2 and "nobody" in out and "configured: test" in out


def test_problem_files_are_counted_per_file_listed_in_full_and_kept_while_unchanged(tmp_path: Path,
                                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Kept.md").write_text("# Kept\n\nA note that reads fine.\n", encoding="utf-8")
    empty = [f"Empty {n:02}.md" for n in range(12)]  # more than the summary shows
    for name in empty:
        (vault / name).write_bytes(b"")
    config = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]}).config_path
    for run in ("first", "unchanged"):
        code, out = _ingest(config, "--json")
        assert code == 0, out
        [outcome] = json.loads(out)
        documents = outcome["metadata"]["documents"]
        assert documents["problems"] == 12 and [p["path"] for p in outcome["problem_files"]] == empty, run
        assert documents["documents"] == 1 and documents["unchanged"] == (1 if run == "unchanged" else 0)
    status = json.loads(runner.invoke(app, ["status", "--json", "--config", str(config)]).stdout)
    assert status["counts"]["problem files"] == 12 and [p["path"] for p in status["problems"]] == empty
    shown = runner.invoke(app, ["status", "--config", str(config)]).output
    assert all(f"{name}: empty file" in shown for name in empty)
