"""The MCP server as an assistant sees it: the official `mcp` client drives `mnemo mcp` over stdio."""

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.support import Workspace, make_workspace

TOOLS = {"recall", "remember", "forget", "get_entity", "explore", "timeline"}


def _payload(result: Any) -> Any:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def _session_run(workspace: Workspace, namespace: str) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mnemo.cli.main", "mcp", "--namespace", namespace,
                                                                 "--config", str(workspace.config_path)],
                                   env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        out["tools"] = {t.name: t for t in (await session.list_tools()).tools}
        out["resources"] = {str(r.uri) for r in (await session.list_resources()).resources}
        out["recall"] = _payload(await session.call_tool("recall", {"query": "advice from Dana Kim about meetings", "k": 5}))
        out["entity"] = _payload(await session.call_tool("get_entity", {"ref": "person_id:dana_kim"}))
        out["explore"] = _payload(await session.call_tool("explore", {"ref": "person_id:dana_kim", "depth": 2}))
        out["timeline"] = _payload(await session.call_tool("timeline", {"since": "2026-10-01", "until": "2026-10-31"}))
        out["remember"] = _payload(await session.call_tool("remember", {"text": "Dana recommended the book High Output Management."}))
        out["brief"] = _payload(await session.call_tool("remember", {"text": "Gate code 4512.", "ttl": 3600,
                                                                     "scope": "session:s1"}))
        out["brief_recall"] = _payload(await session.call_tool("recall", {"query": "gate code", "session": "s1"}))
        await session.call_tool("forget", {"memory_id": out["brief"]["id"], "confirm": True})
        out["recall_remembered"] = _payload(await session.call_tool("recall", {"query": "Which book did Dana recommend?"}))
        out["preview"] = _payload(await session.call_tool("forget", {"memory_id": out["remember"]["id"]}))
        out["after_preview"] = _payload(await session.call_tool("forget", {"memory_id": out["remember"]["id"], "confirm": True}))
        out["missing"] = await session.call_tool("get_entity", {"ref": "person_id:nobody_here"})
        out["forget_missing"] = await session.call_tool("forget", {"entity": "person_id:victor_stone", "confirm": True})
        out["preview_missing"] = await session.call_tool("forget", {"entity": "person_id:victor_stone"})
        out["bad_depth"] = await session.call_tool("explore", {"ref": "person_id:dana_kim", "depth": 9})
        out["self"] = json.loads((await session.read_resource("mnemo://self")).contents[0].text)
        out["top"] = json.loads((await session.read_resource("mnemo://top-of-mind")).contents[0].text)
    return out


def test_mcp_client_drives_every_tool_and_resource_over_stdio(assist_workspace: Workspace) -> None:
    inbox = assist_workspace.files("test").root / "inbox"
    out = asyncio.run(_session_run(assist_workspace, "test"))
    assert TOOLS <= set(out["tools"])
    for name in TOOLS:
        tool = out["tools"][name]
        assert len(tool.description or "") > 40 and tool.input_schema["type"] == "object"
        assert "namespace" not in tool.input_schema.get("properties", {})
    assert out["tools"]["recall"].input_schema["properties"]["mode"]["enum"] == ["eager", "deliberate"]
    assert out["resources"] == {"mnemo://self", "mnemo://top-of-mind"}
    assert "Write the doc before the meeting" in out["recall"]["text"]
    assert out["entity"]["name"] == "Dana Kim" and out["entity"]["properties"]["role"]["value"] == "VP Engineering"
    assert {e["hop"] for e in out["explore"]["edges"]} == {1, 2}
    assert out["timeline"]["notes"] and all("2026-10-01" <= n["at"][:10] <= "2026-10-31" for n in out["timeline"]["notes"])
    assert out["remember"]["status"] == "recallable"
    assert out["brief"]["expires_at"] > out["brief"]["created"] and out["brief"]["scope"] == "session:s1"
    assert out["brief_recall"]["items"][0]["text"] == "Gate code 4512."
    assert out["recall_remembered"]["items"][0]["text"] == "Dana recommended the book High Output Management."
    assert out["preview"]["dry_run"] and out["preview"]["would_forget"]["text"].startswith("Dana recommended")
    assert not out["after_preview"]["dry_run"] and not (inbox / f"{out['remember']['id']}.json").exists()
    assert out["missing"].is_error and "no entity" in out["missing"].content[0].text
    for missing in (out["forget_missing"], out["preview_missing"]):
        assert missing.is_error and "no entity 'person_id:victor_stone'" in missing.content[0].text
    tombstones = inbox.parent / "tombstones.json"
    assert not tombstones.exists() or "victor_stone" not in tombstones.read_text(encoding="utf-8")
    assert out["bad_depth"].is_error
    assert out["self"]["self"]["name"] == "Sam Rivera"
    assert out["top"]["source"] == "mentions" and out["top"]["items"]


async def _http_session_run(url: str) -> dict[str, Any]:
    from mcp.client.streamable_http import streamable_http_client

    out: dict[str, Any] = {}
    async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        out["tools"] = {t.name for t in (await session.list_tools()).tools}
        out["recall"] = _payload(await session.call_tool("recall", {"query": "advice from Dana Kim about meetings", "k": 5}))
        out["top"] = json.loads((await session.read_resource("mnemo://top-of-mind")).contents[0].text)
    return out


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_mcp_client_over_streamable_http(assist_workspace: Workspace, tmp_path: Path) -> None:
    """`mnemo mcp --transport streamable-http` on 127.0.0.1, driven by the official client."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = open(tmp_path / "mcp.log", "wb")  # noqa: SIM115 - the child owns it; never an unread pipe
    proc = subprocess.Popen([sys.executable, "-m", "mnemo.cli.main", "mcp", "--namespace", "test", "--config",
                             str(assist_workspace.config_path), "--transport", "streamable-http", "--port", str(port)],
                            env={**os.environ, "HF_HUB_OFFLINE": "1"}, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    try:
        deadline = time.monotonic() + 60
        while not _listening(port):
            assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "mcp.log").read_text()
            time.sleep(0.2)
        out = asyncio.run(_http_session_run(f"http://127.0.0.1:{port}/mcp"))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert TOOLS <= out["tools"]
    assert "Write the doc before the meeting" in out["recall"]["text"]
    assert out["top"]["items"]


MEMORY_TOOLS = {"save", "read", "exists", "append", "list", "get_memory"}


async def _memory_tools_run(workspace: Workspace) -> dict[str, Any]:
    """The memory vocabulary over stdio: by title, by scope (a room), expiry and recall options."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "mnemo.cli.main", "mcp", "--namespace", "test",
                                                                 "--config", str(workspace.config_path)],
                                   env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    out: dict[str, Any] = {}
    scope = "project:mcp-titled"
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def call(tool: str, args: dict[str, Any]) -> Any:
            return _payload(await session.call_tool(tool, args))

        out["tools"] = {t.name for t in (await session.list_tools()).tools}
        out["saved"] = await call("save", {"title": "Standup notes", "text": "Standup moved to 9:45 on Tuesdays.",
                                           "scope": scope})
        out["first_recall"] = await call("recall", {"query": "When is the standup?", "project": "mcp-titled",
                                                    "limit": 3})
        out["exists"] = await call("exists", {"title": "Standup notes", "scope": scope})
        out["appended"] = await call("append", {"title": "Standup notes", "text": "Bring the sprint board.",
                                                "scope": scope})
        out["read"] = await call("read", {"title": "Standup notes", "scope": scope})
        out["list"] = await call("list", {"scope": scope})
        out["get"] = await call("get_memory", {"memory_id": out["saved"]["id"], "scope": scope})
        out["bad_title"] = await session.call_tool("save", {"title": "Standup!", "text": "x"})
        out["floor"] = await call("recall", {"query": "When is the standup?", "project": "mcp-titled",
                                             "min_similarity": 0.2, "k": 5})
        out["bad_floor"] = await session.call_tool("recall", {"query": "standup", "min_similarity": 3})
        out["brief"] = await call("remember", {"text": "The visitor badge code is 8812.", "ttl": 1})
        await asyncio.sleep(1.2)
        out["expired_preview"] = await call("forget", {"expired": True})
        out["expired"] = await call("forget", {"expired": True, "confirm": True})
        out["title_preview"] = await call("forget", {"title": "Standup notes", "scope": scope})
        out["clear_preview"] = await call("forget", {"scope": scope})
        out["cleared"] = await call("forget", {"scope": scope, "confirm": True})
        out["after"] = await call("exists", {"title": "Standup notes", "scope": scope})
    return out


def test_mcp_memory_tools_by_title_scope_and_expiry(assist_workspace: Workspace) -> None:
    out = asyncio.run(_memory_tools_run(assist_workspace))
    assert MEMORY_TOOLS <= out["tools"]
    assert out["saved"]["status"] == "recallable" and out["saved"]["slug"] == "standup-notes"
    assert "Standup moved to 9:45 on Tuesdays." in [i["text"] for i in out["first_recall"]["items"]]
    assert out["exists"] == {"exists": True} and out["after"] == {"exists": False}
    assert out["read"]["text"] == out["appended"]["text"] == "Standup moved to 9:45 on Tuesdays.\n\nBring the sprint board."
    assert [h["text"] for h in out["read"]["history"]] == ["Standup moved to 9:45 on Tuesdays."]
    assert [m["id"] for m in out["list"]["memories"]] == [out["saved"]["id"]] == [out["get"]["id"]]
    assert out["bad_title"].is_error and "ends with a non-word character" in out["bad_title"].content[0].text
    assert out["floor"]["items"] and all(i["similarity"] >= 0.2 for i in out["floor"]["items"] if i["kind"] == "chunk")
    assert out["bad_floor"].is_error
    assert [m["id"] for m in out["expired_preview"]["would_forget"]] == [out["brief"]["id"]]
    assert [i["memory"] for i in out["expired"]["items"]] == [out["brief"]["id"]]
    assert out["title_preview"]["dry_run"] and out["title_preview"]["would_forget"]["id"] == out["saved"]["id"]
    assert [m["id"] for m in out["clear_preview"]["would_forget"]] == [out["saved"]["id"]]
    assert [i["memory"] for i in out["cleared"]["items"]] == [out["saved"]["id"]]


async def _recall_over_stdio(workspace: Workspace, namespace: str) -> Any:
    command = ["-m", "mnemo.cli.main", "mcp", "--namespace", namespace, "--config", str(workspace.config_path)]
    params = StdioServerParameters(command=sys.executable, args=command,
                                   env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await session.call_tool("recall", {"query": "where is the spare key"})


def test_mcp_recall_on_a_namespace_that_holds_nothing_yet_is_a_tool_error(tmp_path: Path) -> None:
    """As the CLI and HTTP: a configured namespace never ingested, with nothing remembered, is an
    error the model can read (run `mnemo ingest`), not an empty answer."""
    workspace = make_workspace(tmp_path, {"work": []})
    result = asyncio.run(_recall_over_stdio(workspace, "work"))
    said = " ".join(part.text for part in result.content if hasattr(part, "text"))
    assert result.is_error and "holds nothing yet" in said and "run `mnemo ingest`" in said
    assert not (workspace.config.data_dir / "work").exists()
