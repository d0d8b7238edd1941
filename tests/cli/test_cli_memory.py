"""The memory commands end to end: remember, ingest, recall, entity, forget, status; bad input."""

import json

import dagster as dg
import pytest
import yaml
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo_dagster.jobs import NAMESPACE_TAG
from mnemo_dagster.resources import MnemoConfigResource
from mnemo_dagster.sensors.memories import memory_inbox_sensor
from tests.support import Workspace

runner = CliRunner()


def run(workspace: Workspace, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, [*args, "--config", str(workspace.config_path)])
    return result.exit_code, result.output


def test_commands_end_to_end(workspace: Workspace) -> None:
    code, out = run(workspace, "remember", "Rui recommended the tasca on Rua da Rosa", "-e", "person_id:rui", "-n", "test", "--json")
    assert code == 0
    memory = json.loads(out)
    assert memory["status"] == "recallable"
    assert "pending memories" in run(workspace, "status", "-n", "test")[1]
    code, out = run(workspace, "recall", "tasca Rua da Rosa", "-n", "test", "--json", "--k", "3")
    assert code == 0 and json.loads(out)["items"][0]["text"].startswith("Rui recommended")  # before any ingest
    workspace.ingest()
    code, out = run(workspace, "recall", "tasca Rua da Rosa", "-n", "test", "--json", "--k", "3")
    assert code == 0
    data = json.loads(out)
    assert data["items"][0]["text"].startswith("Rui recommended") and "person_id:rui" in data["grounding"]
    code, out = run(workspace, "recall", "Who is Alice Chen?", "-n", "test", "--mode", "deliberate")
    assert code == 0 and "Alice Chen" in out
    code, out = run(workspace, "entity", "person_id:alice_chen", "-n", "test")
    assert code == 0 and "Robotics engineer" in out and "works_at" in out
    code, out = run(workspace, "forget", "--query", "tasca Rua da Rosa", "-n", "test")
    assert code == 0 and "would forget" in out and "--yes" in out
    code, out = run(workspace, "forget", "--memory", memory["id"], "-n", "test")
    assert code == 0 and "forgot" in out
    data = json.loads(run(workspace, "recall", "tasca Rua da Rosa", "-n", "test", "--json")[1])
    assert all("Rui recommended" not in i["text"] for i in data["items"])


@pytest.mark.parametrize("args, message", [
    (["recall", "x", "--mode", "sideways"], "unknown mode"),
    (["recall", "   "], "query"),
    (["remember", ""], "empty"),
    (["remember", "hi", "-e", "alice"], "invalid entity reference"),
    (["forget"], "exactly one"),
    (["entity", "person_id:nobody"], "no entity"),
    (["recall", "x", "-n", "Bad Name"], "invalid namespace"),
])
def test_bad_input_exits_non_zero_with_a_message(workspace: Workspace, args: list[str], message: str) -> None:
    code, out = run(workspace, *args)
    assert code == 2 and message in out


def test_inbox_sensor_requests_one_run_per_change(workspace: Workspace) -> None:
    from mnemo.client import MemoryClient

    resource = MnemoConfigResource(config_path=str(workspace.config_path))
    instance = workspace.instance
    with dg.build_sensor_context(instance=instance, resources={"mnemo_config": resource}) as context:
        assert isinstance(memory_inbox_sensor(context), dg.SkipReason)
    settings = yaml.safe_load(workspace.config_path.read_text(encoding="utf-8"))
    settings["namespaces"]["newbie"] = {"sources": []}  # a namespace exists once configured
    workspace.config_path.write_text(yaml.safe_dump(settings), encoding="utf-8")
    MemoryClient("newbie", workspace.config_path).remember("first memory")
    with dg.build_sensor_context(instance=instance, resources={"mnemo_config": resource}) as context:
        result = memory_inbox_sensor(context)
    assert [(r.partition_key, r.tags[NAMESPACE_TAG]) for r in result.run_requests] == [("newbie", "newbie")]
    assert result.dynamic_partitions_requests[0].partition_keys == ["newbie"]
    with dg.build_sensor_context(instance=instance, cursor=result.cursor, resources={"mnemo_config": resource}) as context:
        again = memory_inbox_sensor(context)
    assert isinstance(again, dg.SkipReason)


def test_recall_returns_as_many_items_by_default_on_every_surface() -> None:
    from typer.main import get_command

    from mnemo.cli.main import app
    from mnemo.client import recall_limit
    from mnemo.recall.limit import DEFAULT_LIMIT

    command = get_command(app).commands["recall"]  # type: ignore[attr-defined]
    (limit,) = [p for p in command.params if p.name == "limit"]
    assert limit.default == recall_limit(None, None) == DEFAULT_LIMIT == 10  # the client, HTTP and MCP use it
