"""MCP over stdio, answering the requests the SDK's transport drops.

The SDK parses each line with a strict JSON parser that refuses an unpaired surrogate escape
(`"\\ud800"`: not Unicode text) and then drops the line, so its caller waits for ever. Here such
a request gets an error answer at once, under its own id, naming the argument that holds it.
"""

import json
from collections.abc import AsyncIterable
from typing import Any, Protocol

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_PARAMS, ErrorData, JSONRPCError
from pydantic import ValidationError

_ARGUMENTS = "params.arguments."


class _Answers(Protocol):
    async def send(self, item: SessionMessage) -> None: ...


class StdioMCPServer(MCPServer):
    """The SDK's server, whose stdio transport answers a request holding an unpaired surrogate."""

    async def run_stdio_async(self) -> None:
        lowlevel = self._lowlevel_server
        async with stdio_server() as (read_stream, write_stream):
            send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            async with anyio.create_task_group() as group:
                group.start_soon(_pass_on, read_stream, send, write_stream)
                await lowlevel.run(receive, write_stream, lowlevel.create_initialization_options())


async def _pass_on(source: AsyncIterable[SessionMessage | Exception],
                   sink: MemoryObjectSendStream[SessionMessage | Exception], answers: _Answers) -> None:
    """Every message on to the server, except an undecodable request, which is answered here."""
    async with sink:
        async for item in source:
            refusal = undecodable_request(item) if isinstance(item, Exception) else None
            if refusal is None:
                await sink.send(item)
            else:
                await answers.send(SessionMessage(refusal))


def undecodable_request(error: Exception) -> JSONRPCError | None:
    """The error answer to a request line the SDK refused because it holds an unpaired
    surrogate; None for any other failure (the SDK handles those as it does)."""
    line = error.errors()[0].get("input") if isinstance(error, ValidationError) and error.errors() else None
    try:
        request = json.loads(line) if isinstance(line, str) else None
    except ValueError:
        return None
    if not isinstance(request, dict) or "id" not in request or "method" not in request:
        return None
    where = _surrogate_in(request.get("params"), "params")
    if where is None:
        return None
    named = f"argument {where.removeprefix(_ARGUMENTS)!r}" if where.startswith(_ARGUMENTS) else where
    message = f"{named} is not Unicode text (it holds an unpaired surrogate such as \\ud800): send valid UTF-8 text"
    return JSONRPCError(jsonrpc="2.0", id=request["id"], error=ErrorData(code=INVALID_PARAMS, message=message))


def _surrogate_in(value: Any, path: str) -> str | None:
    """The path (`params.arguments.text`) of the first string holding an unpaired surrogate."""
    if isinstance(value, str):
        return path if any("\ud800" <= c <= "\udfff" for c in value) else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, inner in items:
        key_text = key.encode("utf-8", "backslashreplace").decode() if isinstance(key, str) else str(key)
        found = _surrogate_in(key, f"{path} key") if isinstance(key, str) else None
        found = found or _surrogate_in(inner, f"{path}.{key_text}")
        if found:
            return found
    return None
