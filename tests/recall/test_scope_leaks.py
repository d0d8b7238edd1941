"""What only scoped memories say stays in their scope on every surface: the Python client, the
CLI, the HTTP API (a real server) and the MCP server. A memory of `project:alpha` names
person_id:zed_quark, a titled memory "Bluefin budget" is saved there, and another gives Dana Kim
(a note of the vault, also named by a global memory) a new role; after ingest, a caller outside
the project sees neither name, in recall's grounding, the entity lookup or the timeline, and Dana
with the role her note gives; a caller of the project sees them all."""

import asyncio
import json
import os
import shutil
import sys
from dataclasses import replace
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.errors import MnemoError
from mnemo.serve.activity import explore, timeline
from mnemo.serve.api_keys import KeyStore
from tests.serve.test_api import start_server
from tests.support import EXAMPLE_VAULT, Workspace, make_workspace, steady_client

ZED = "person_id:zed_quark"
ZED_ID = "person_zed_quark"  # its id in the graph
DANA = "person_id:dana_kim"
SINCE = "2000-01-01"


@pytest.fixture(scope="module")
def scoped(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("scoped")
    for rel in ("People/Sam Rivera.md", "People/Dana Kim.md", "Daily/2026-09-01.md"):
        (root / "vault" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(EXAMPLE_VAULT / rel, root / "vault" / rel)
    workspace = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(root / "vault")}]})
    c = steady_client(workspace)
    c.remember(f"Met {ZED} about the quarterly numbers", scope="project:alpha")
    c.save("Bluefin budget", "The budget is forty thousand.", scope="project:alpha")
    c.remember("Dana's codename", entities=[{"person_id": "dana_kim", "properties": {"role": "Heron lead"},
                                             "relations": [{"role": "knows", "target": ZED}]}], scope="project:alpha")
    c.remember(f"Lunch with {DANA} on Friday")
    workspace.ingest()
    return workspace


def _titles(found: dict[str, Any]) -> set[str]:
    return {n["title"] for n in found["notes"]}


def test_the_client_shows_scoped_names_only_in_their_scope(scoped: Workspace) -> None:
    c = steady_client(scoped)
    assert ZED not in c.recall("zed quark").grounding
    with pytest.raises(MnemoError, match="no entity"):
        c.get_entity(ZED)
    assert not {"Bluefin budget", "zed_quark"} & _titles(timeline(c, SINCE))
    dana = c.get_entity(DANA, props=True, relations=True)
    assert dana["properties"]["role"]["value"] == "VP Engineering" and ZED_ID not in {r["dst"] for r in dana["relations"]}
    assert ZED_ID not in {e["dst"] for e in explore(c, DANA)["edges"]}
    assert ZED in c.recall("zed quark", project="alpha").grounding
    assert c.get_entity(ZED, project="alpha")["id"] == ZED_ID
    assert {"Bluefin budget", "zed_quark"} <= _titles(timeline(c, SINCE, project="alpha"))
    dana = c.get_entity(DANA, props=True, relations=True, project="alpha")
    assert dana["properties"]["role"]["value"] == "Heron lead" and ZED_ID in {r["dst"] for r in dana["relations"]}
    assert ZED_ID in {e["dst"] for e in explore(c, DANA, project="alpha")["edges"]}
    assert ZED not in c.recall("zed quark", project="beta").grounding


def test_the_cli_shows_scoped_names_only_in_their_scope(scoped: Workspace) -> None:
    args = ["-n", "test", "--config", str(scoped.config_path)]
    runner = CliRunner()
    recalled = runner.invoke(app, ["recall", "zed quark", "--json", *args])
    assert recalled.exit_code == 0 and ZED not in json.loads(recalled.output)["grounding"]
    outside = runner.invoke(app, ["entity", ZED, *args])
    assert outside.exit_code != 0 and "no entity" in outside.output
    inside = runner.invoke(app, ["entity", ZED, "--project", "alpha", "--json", *args])
    assert inside.exit_code == 0, inside.output
    assert json.loads(inside.output)["id"] == ZED_ID


def test_the_http_api_shows_scoped_names_only_in_their_scope(scoped: Workspace) -> None:
    _, key = KeyStore(scoped.config.data_dir).create("test", "scope tests")
    proc, url = start_server(str(scoped.config_path))
    try:
        with httpx.Client(base_url=f"{url}/v1/test", headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
            outside = http.get("/timeline", params={"since": SINCE}).json()
            inside = http.get("/timeline", params={"since": SINCE, "project": "alpha"}).json()
            entity_outside = http.get(f"/entities/{ZED}")
            entity_inside = http.get(f"/entities/{ZED}", params={"project": "alpha"})
            recalled = http.get("/recall", params={"q": "zed quark"}).json()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert not {"Bluefin budget", "zed_quark"} & _titles(outside)
    assert entity_outside.status_code == 404 and ZED not in recalled["grounding"]
    assert {"Bluefin budget", "zed_quark"} <= _titles(inside)
    assert entity_inside.status_code == 200 and entity_inside.json()["id"] == ZED_ID


async def _mcp_run(workspace: Workspace) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mnemo.cli.main", "mcp", "--namespace", "test",
                                                                 "--config", str(workspace.config_path)],
                                   env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        calls = {
            "timeline": ("timeline", {"since": SINCE}),
            "timeline_alpha": ("timeline", {"since": SINCE, "project": "alpha"}),
            "entity": ("get_entity", {"ref": ZED}),
            "entity_alpha": ("get_entity", {"ref": ZED, "project": "alpha"}),
            "recall": ("recall", {"query": "zed quark"}),
        }
        return {name: await session.call_tool(tool, args) for name, (tool, args) in calls.items()}


def _payload(result: Any) -> Any:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def test_the_mcp_server_shows_scoped_names_only_in_their_scope(scoped: Workspace) -> None:
    out = asyncio.run(_mcp_run(scoped))
    assert not {"Bluefin budget", "zed_quark"} & _titles(_payload(out["timeline"]))
    assert out["entity"].is_error and ZED not in _payload(out["recall"])["grounding"]
    assert {"Bluefin budget", "zed_quark"} <= _titles(_payload(out["timeline_alpha"]))
    assert _payload(out["entity_alpha"])["id"] == ZED_ID


def _expire(workspace: Workspace, memory_id: str) -> None:
    """Let the memory's time pass: its expiry moved into the past in its file and in the documents
    the last scan made of it, the file's size and times kept (so the scan sees it unchanged, as it
    would when only the clock moved)."""
    path = workspace.files().root / "inbox" / f"{memory_id}.json"
    stat = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace('"expires_at": "2099', '"expires_at": "2000'), encoding="utf-8")
    assert path.stat().st_size == stat.st_size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    files = workspace.files()
    past = {"expires_at": "2000-01-01T00:00:00.000000+00:00"}
    files.write_documents([replace(d, properties={**d.properties, **past}) if d.properties.get("memory_id") == memory_id
                           else d for d in files.read_documents()])


def _entity_ids(workspace: Workspace) -> set[str]:
    return {r["id"] for r in workspace.graph().query("MATCH (e:Entity) RETURN e.id AS id")}


def test_expired_memories_are_never_ingested_and_leave_at_the_next_ingest(workspace: Workspace) -> None:
    c = steady_client(workspace)
    late = c.remember("Parked at person_id:old_garage", expires_at="2099-01-01T00:00:00Z")
    never = c.remember("Visitor person_id:brief_guest came by", expires_at="2099-01-01T00:00:00Z")
    _expire(workspace, never.id)
    workspace.ingest()
    assert "person_old_garage" in _entity_ids(workspace)
    assert "person_brief_guest" not in _entity_ids(workspace)
    _expire(workspace, late.id)
    workspace.ingest()
    assert not {"person_old_garage", "person_brief_guest"} & _entity_ids(workspace)
    assert not {"old_garage", "brief_guest"} & _titles(timeline(c, SINCE))
    assert not {late.text, never.text} & {i.text for i in c.recall("who parked at the garage").items}
