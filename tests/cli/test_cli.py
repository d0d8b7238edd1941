"""The `mnemo` command: help everywhere, JSON output, clear errors with a non-zero exit."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.recall.limit import DEFAULT_LIMIT
from tests.support import Workspace

runner = CliRunner()


def command_names() -> list[str]:
    import typer.main

    group = typer.main.get_command(app)
    return sorted(group.commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", command_names())
def test_every_command_has_help(name: str) -> None:
    result = runner.invoke(app, [name, "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.output and len(result.output.splitlines()) > 4


def test_recall_json_after_ingest(workspace: Workspace) -> None:
    workspace.ingest()
    result = runner.invoke(app, ["recall", "Who leads Project Heron?", "-n", "test", "--json", "--config", str(workspace.config_path)])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["items"] and len(payload["items"]) <= DEFAULT_LIMIT
    assert any(item["path"] == "Projects/Project Heron.md" for item in payload["items"])


def test_status_after_ingest(workspace: Workspace) -> None:
    workspace.ingest()
    result = runner.invoke(app, ["status", "-n", "test", "--config", str(workspace.config_path)])
    assert result.exit_code == 0, result.output
    assert "Entity" in result.output and "38" in result.output  # every note of the example vault is an entity (test_ingest)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["recall", "x", "-n", "Not Valid!"], "invalid namespace name"),
        (["recall", "   ", "-n", "test"], "the query is empty"),
    ],
)
def test_bad_input_exits_non_zero(workspace: Workspace, args: list[str], message: str) -> None:
    result = runner.invoke(app, [*args, "--config", str(workspace.config_path)])
    assert result.exit_code == 2
    assert message in result.output


def test_missing_config_exits_non_zero(tmp_path) -> None:  # noqa: ANN001
    result = runner.invoke(app, ["recall", "x", "--config", str(tmp_path / "absent.yaml")])
    assert result.exit_code == 2
    assert "configuration file not found" in " ".join(result.output.split())  # the terminal may wrap it


def test_with_no_mnemo_yaml_the_error_says_to_run_mnemo_init(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MNEMO_CONFIG", raising=False)
    for args in (["status"], ["recall", "x"], ["ingest"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "make one with `mnemo init PATH`" in " ".join(result.output.split()), args
    assert not list(tmp_path.iterdir())  # nothing made on the way


def test_help_lists_commands_in_the_order_a_newcomer_uses_them() -> None:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "120"})
    commands = result.output.split("Commands", 1)[1]
    listed = [line.split()[1] for line in commands.splitlines() if line.startswith("│ ") and line.split()[1].isalpha()]
    assert listed[:6] == ["init", "ingest", "recall", "remember", "status", "up"], listed
    assert listed[-1] == "writeback" and len(listed) == len(set(listed)) >= 30
