"""Every command that prints a table prints the same as JSON with --json; `entity` shows the note."""

import json
from pathlib import Path

from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.sleep.merges import MergeLog
from mnemo.sleep.resolve import read_review_queue
from mnemo.sleep.store import SleepFiles
from tests.sleep.test_sleep_merges import CANONICAL, DUPLICATE, _add_duplicate
from tests.support import Workspace

runner = CliRunner()


def _json(workspace: Workspace, *args: str) -> object:
    result = runner.invoke(app, [*args, "--json", "--config", str(workspace.config_path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_status_merges_review_and_keys_print_json(workspace: Workspace, vault: Path) -> None:
    _add_duplicate(vault)
    workspace.ingest()
    assert runner.invoke(app, ["sleep", "-n", "test", "--config", str(workspace.config_path)]).exit_code == 0
    status = _json(workspace, "status", "-n", "test")
    assert isinstance(status, dict) and status["ingested"] is True
    assert {k: status["counts"][k] for k in workspace.graph().counts()} == workspace.graph().counts()
    assert status["counts"]["chunk vectors"] == workspace.vectors().count("chunks") > 0
    assert [p["path"] for p in status["problems"]] == [p["path"] for p in workspace.files().read_problems()]
    sleep_files = SleepFiles(workspace.files().root)
    [merge] = MergeLog(sleep_files).active()
    merges = _json(workspace, "merges", "-n", "test")
    assert merges == [merge.to_dict()] and (merge.canonical, merge.merged) == (CANONICAL, DUPLICATE)
    assert _json(workspace, "review", "list", "--all", "-n", "test") == read_review_queue(sleep_files)
    created = runner.invoke(app, ["keys", "create", "test", "--label", "phone", "--config", str(workspace.config_path)])
    assert created.exit_code == 0
    keys = _json(workspace, "keys", "list")
    assert isinstance(keys, list) and [(k["namespace"], k["label"]) for k in keys] == [("test", "phone")]
    assert "hash" not in keys[0] and keys[0]["id"] in created.output


def test_status_json_before_any_ingest(workspace: Workspace) -> None:
    assert _json(workspace, "status", "-n", "test") == {
        "namespace": "test", "ingested": False, "counts": {}, "problems": [], "degraded": []}


def test_entity_text_shows_the_note_content(workspace: Workspace, vault: Path) -> None:
    workspace.ingest()
    result = runner.invoke(app, ["entity", "person_id:dana_kim", "-n", "test", "--config", str(workspace.config_path)])
    assert result.exit_code == 0, result.output
    shown = " ".join(result.output.split())
    body = (vault / "People" / "Dana Kim.md").read_text(encoding="utf-8").split("---", 2)[2]
    for line in ("Write the doc before the meeting, not after.", "Draft the talk outline"):
        assert line in body and line in shown
