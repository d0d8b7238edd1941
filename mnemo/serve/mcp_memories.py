"""The MCP tools for memories by title and by scope: save, read, exists, append, list, get_memory;
and what `forget` shows before it is confirmed.

A room is a scope: `get_memory` (memory_id, scope), `list` (scope) is `get_all(room)`, and
`forget` (scope, confirm) is `clear(room)`.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mnemo.client import MemoryClient
from mnemo.errors import MnemoError

Title = Annotated[str, Field(description="The memory's title: unique (by its slug) within the scope.",
                             min_length=1, max_length=200)]
Scope = Annotated[str, Field(description="global, project:<name> or session:<id> (a room).", max_length=120)]
Text = Annotated[str, Field(description="The memory's text.", min_length=1, max_length=20000)]


@contextmanager
def clear_errors() -> Iterator[None]:
    """Bad input becomes a tool error whose message the model can read and act on."""
    try:
        yield
    except MnemoError as exc:
        raise ToolError(str(exc)) from exc


def add_memory_tools(server: MCPServer, memory: MemoryClient) -> None:
    """The tools by title (save, read, exists, append) and by scope (list, get_memory)."""

    @server.tool()
    def save(title: Title, text: Text, scope: Scope = "global", ttl: Annotated[
        float | None, Field(description="Seconds after which recall stops returning it.", gt=0)] = None,
             expires_at: Annotated[str | None, Field(description="Or an ISO time when it expires.", max_length=40)]
             = None) -> dict[str, Any]:
        """Save a memory under a title: a new one, or the text of the one with that title replaced
        (the old text is kept in its history). The next recall finds it."""
        with clear_errors():
            return memory.save(title, text, scope, expires_at=expires_at, ttl=ttl).to_dict()

    @server.tool()
    def read(title: Title, scope: Scope = "global") -> dict[str, Any]:
        """The memory saved under a title in a scope: text, history, status and expiry."""
        with clear_errors():
            return memory.read(title, scope).to_dict()

    @server.tool()
    def exists(title: Title, scope: Scope = "global") -> dict[str, bool]:
        """Whether a memory is saved under a title in a scope (and has not expired)."""
        with clear_errors():
            return {"exists": memory.exists(title, scope)}

    @server.tool()
    def append(title: Title, text: Text, scope: Scope = "global") -> dict[str, Any]:
        """Add text to the end of the memory saved under a title (which must exist)."""
        with clear_errors():
            return memory.append(title, text, scope).to_dict()

    @server.tool(name="list")
    def list_memories(scope: Annotated[str | None, Field(
            description="Only the memories of this scope (a room); all when omitted.", max_length=120)] = None,
    ) -> dict[str, Any]:
        """The remembered and saved memories, oldest first, with id, title, scope, status and expiry."""
        with clear_errors():
            return {"memories": [m.to_dict() for m in memory.list(scope)]}

    @server.tool()
    def get_memory(memory_id: Annotated[str, Field(description="A memory id.", min_length=1, max_length=100)],
                   scope: Annotated[str | None, Field(description="Only if it is in this scope (room).",
                                                      max_length=120)] = None) -> dict[str, Any]:
        """A memory by id with its status: processing, recallable, ingested or expired."""
        with clear_errors():
            return memory.get_memory(memory_id, scope).to_dict()


@dataclass
class Forgetting:
    """What a `forget` call names: exactly one of these."""

    memory_id: str | None
    entity: str | None
    query: str | None
    title: str | None
    scope: str | None
    expired: bool

    def target(self) -> str:
        """The one thing named (scope counts only without title); a MnemoError naming the problem otherwise."""
        named = [name for name in ("memory_id", "entity", "query", "title") if getattr(self, name) is not None]
        named += ["scope"] * (self.scope is not None and self.title is None) + ["expired"] * self.expired
        if len(named) != 1:
            got = "none of them" if not named else " and ".join(named)
            raise MnemoError(f"forget needs exactly one of: memory_id, entity, query, title, scope, expired "
                             f"(got {got})")
        return named[0]


def preview(memory: MemoryClient, asked: Forgetting) -> dict[str, Any]:
    """What `forget` would forget, without forgetting it."""
    clearing = asked.target() == "scope"
    if asked.query is not None:
        return memory.forget(query=asked.query).to_dict()
    found: Any
    if asked.memory_id:
        found = memory.memory(asked.memory_id).to_dict()
    elif asked.entity:
        found = memory.get_entity(asked.entity)
    elif asked.title:
        found = memory.read(asked.title, asked.scope or "global").to_dict()
    else:
        chosen = memory.list(asked.scope) if clearing else memory.list()
        found = [m.to_dict() for m in chosen if clearing or m.status == "expired"]
    return {"dry_run": True, "would_forget": found, "hint": "call again with confirm=true to forget it"}
