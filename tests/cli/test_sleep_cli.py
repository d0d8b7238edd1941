"""The sleep-mode commands: sleep (a second run with no new data changes nothing), merges,
unmerge, review — results and clear errors."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.sleep.merges import MergeLog
from mnemo.sleep.store import SleepFiles
from tests.sleep.test_sleep_merges import CANONICAL, DUPLICATE, _add_duplicate
from tests.support import Workspace

runner = CliRunner()


def _run(workspace: Workspace, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, [*args, "-n", "test", "--config", str(workspace.config_path)])
    return result.exit_code, result.output


def test_sleep_merges_and_unmerge_from_the_cli(workspace: Workspace, vault: Path) -> None:
    _add_duplicate(vault)
    workspace.ingest()
    code, output = _run(workspace, "sleep", "--json")
    assert code == 0, output
    report = json.loads(output)
    assert [(m["canonical"], m["merged"]) for m in report["dedup"]["merges"]] == [(CANONICAL, DUPLICATE)]
    assert report["graph_writes"] > 0 and report["summaries"]["made"] > 0 and report["communities"]["summarized"] > 0
    entity_vectors = workspace.vectors().table("entities").search().select(["id"]).limit(None).to_arrow()
    assert CANONICAL in entity_vectors["id"].to_pylist() and DUPLICATE not in entity_vectors["id"].to_pylist()
    dump = workspace.graph().dump()
    code, output = _run(workspace, "sleep", "--json")
    again = json.loads(output)
    assert code == 0 and again["graph_writes"] == 0 and workspace.graph().dump() == dump
    assert again["dedup"]["examined"] == 0 and again["dedup"]["merges"] == []
    assert again["communities"]["summarized"] == 0 and again["communities"]["reused"] == report["communities"]["communities"]
    assert again["summaries"]["made"] == 0 and again["summaries"]["reused"] == report["summaries"]["made"]
    code, output = _run(workspace, "merges")
    assert code == 0 and "merge_" in output
    (merge,) = MergeLog(SleepFiles(workspace.files().root)).active()
    code, output = _run(workspace, "unmerge", merge.merge_id)
    assert code == 0 and f"unmerged {DUPLICATE}" in output.replace("\n", " ")
    assert DUPLICATE in {r["id"] for r in workspace.graph().query("MATCH (e:Entity) RETURN e.id AS id")}
    code, output = _run(workspace, "review", "list", "--all")
    assert code == 0 and "review queue" in output


@pytest.mark.parametrize(("args", "message"), [
    (["unmerge", "merge_nothing"], "no active merge matches"),
    (["review", "accept", "merge_nothing"], "no review item"),
    (["sleep"], "no extractions yet"),
])
def test_sleep_commands_fail_clearly(workspace: Workspace, args: list[str], message: str) -> None:
    code, output = _run(workspace, *args)
    assert code == 2
    assert message in output.replace("\n", " ")


@pytest.mark.parametrize("name", ["list", "accept", "reject"])
def test_review_commands_have_help(name: str) -> None:
    result = runner.invoke(app, ["review", name, "--help"])
    assert result.exit_code == 0 and "Usage" in result.output
