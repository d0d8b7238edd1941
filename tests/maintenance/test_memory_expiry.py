"""Expiring memories: never recalled after their expiry, purged with a tombstone by
`forget --expired` and by sleep mode, and not brought back by a re-ingest."""

import datetime as dt
import json
import time

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.client import MemoryClient
from mnemo.errors import MnemoError
from mnemo.recall.settings import RecallSettings
from mnemo.sources.memory_files import memory_doc_id
from mnemo.stores.tombstones import Tombstones
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import default_resources
from tests.support import Workspace

PARKING = "The car is parked on level -2, bay 47, of the Colombo garage."


def client(workspace: Workspace) -> MemoryClient:
    return MemoryClient("test", workspace.config_path, settings=RecallSettings(random_share=0.0))


def recalled(workspace: Workspace, text: str) -> bool:
    return any(i.text == text for i in client(workspace).recall("Where is the car parked in the garage?").items)


def chunk_rows(workspace: Workspace, memory_id: str) -> int:
    table = workspace.vectors().table("chunks")
    return 0 if table is None else table.count_rows(f"doc_id = '{memory_doc_id('test', memory_id)}'")


def test_an_expired_memory_is_never_recalled_then_forget_expired_purges_it(workspace: Workspace) -> None:
    workspace.ingest()
    runner = CliRunner()
    lasting = client(workspace).remember("The van is parked in the garage, bay 4.", ttl=3600)
    assert recalled(workspace, lasting.text) and client(workspace).memory(lasting.id).status == "recallable"
    made = runner.invoke(app, ["remember", PARKING, "--ttl", "1s", "-n", "test", "--json",
                               "--config", str(workspace.config_path)])
    assert made.exit_code == 0, made.output
    memory = json.loads(made.output)
    assert memory["status"] == "recallable" and memory["expires_at"] > memory["created"]
    keep = client(workspace).remember("The bike is locked at the Colombo garage entrance.")
    while dt.datetime.now(dt.UTC) <= dt.datetime.fromisoformat(memory["expires_at"]):  # the clock passing the expiry, however busy the host
        time.sleep(0.05)
    assert not recalled(workspace, PARKING)  # filtered at query time, nothing purged yet
    assert client(workspace).memory(memory["id"]).status == "expired"
    workspace.ingest()
    assert not recalled(workspace, PARKING) and chunk_rows(workspace, memory["id"]) == 0  # never ingested
    out = runner.invoke(app, ["forget", "--expired", "-n", "test", "--json", "--config", str(workspace.config_path)])
    assert out.exit_code == 0, out.output
    assert [i["memory"] for i in json.loads(out.output)["items"]] == [memory["id"]]
    assert not (workspace.files().root / "inbox" / f"{memory['id']}.json").exists()
    assert memory_doc_id("test", memory["id"]) in Tombstones.load(workspace.files().root).docs
    assert chunk_rows(workspace, memory["id"]) == 0
    workspace.ingest()
    assert chunk_rows(workspace, memory["id"]) == 0 and chunk_rows(workspace, keep.id) == 1


def test_sleep_mode_purges_expired_memories(workspace: Workspace) -> None:
    workspace.ingest()
    gone = client(workspace).remember(PARKING, ttl=3600)
    kept = client(workspace).remember("The bike is locked at the Colombo garage entrance.", ttl=3 * 86400)
    workspace.ingest()
    later = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).isoformat()
    defs = build_defs(default_resources(str(workspace.config_path)))
    result = defs.resolve_job_def("sleep_mode_job").execute_in_process(
        partition_key="test", instance=workspace.instance, tags={"mnemo/now": later})
    assert result.success
    inbox = workspace.files().root / "inbox"
    assert not (inbox / f"{gone.id}.json").exists() and (inbox / f"{kept.id}.json").exists()
    assert chunk_rows(workspace, gone.id) == 0 and chunk_rows(workspace, kept.id) == 1
    assert memory_doc_id("test", gone.id) in Tombstones.load(workspace.files().root).docs
    workspace.ingest()
    assert chunk_rows(workspace, gone.id) == 0


@pytest.mark.parametrize(("options", "problem"), [
    ({"ttl": -5}, "invalid ttl"),
    ({"ttl": 1e300}, "invalid ttl"),
    ({"ttl": 1e12}, "after the year 9999"),
    ({"expires_at": "next tuesday"}, "invalid expires_at"),
    ({"expires_at": "2020-01-01T00:00:00Z"}, "not in the future"),
    ({"ttl": 60, "expires_at": "2099-01-01"}, "not both"),
])
def test_bad_expiry_is_refused_and_nothing_is_written(workspace: Workspace, options: dict, problem: str) -> None:
    with pytest.raises(MnemoError, match=problem):
        client(workspace).remember(PARKING, **options)
    assert not list((workspace.files().root / "inbox").glob("mem_*.json"))


def test_an_expiry_with_a_zone_is_kept_in_utc(workspace: Workspace) -> None:
    memory = client(workspace).remember(PARKING, expires_at="2099-01-01T09:00:00+01:00")
    assert memory.expires_at == "2099-01-01T08:00:00.000000+00:00"
    stored = json.loads((workspace.files().root / "inbox" / f"{memory.id}.json").read_text())
    assert stored["expires_at"] == memory.expires_at
