"""The MCP server (`mnemo mcp`): recall and the graph as tools for any MCP-capable assistant.

The namespace is fixed when the server starts (`--namespace`); no tool takes one, so the
model can never read or change another person's memory.
"""

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from mnemo.client import MemoryClient
from mnemo.recall.limit import DEFAULT_LIMIT
from mnemo.recall.time_bounds import FORMS, check_time_bounds
from mnemo.serve.activity import explore as explore_graph
from mnemo.serve.activity import self_profile, top_of_mind
from mnemo.serve.activity import timeline as timeline_of
from mnemo.serve.mcp_memories import Forgetting, add_memory_tools, clear_errors, preview
from mnemo.serve.mcp_stdio import StdioMCPServer

INSTRUCTIONS = (
    "mnemo is the user's long-term memory of their notes, journal and chats. Call `recall` before answering "
    "questions about the user's life, people, projects or past conversations; `remember` what the user asks you "
    "to keep, or `save` it under a title to `read`, `append` to or replace later; use `get_entity`, `explore` "
    "and `timeline` to dig deeper. Entity references look like "
    "person_id:alice_chen."
)
Project = Annotated[str | None, Field(description="Also the memories of this project.", max_length=100)]
Session = Annotated[str | None, Field(description="Also the memories of this session.", max_length=100)]
Ref = Annotated[str, Field(description="An entity reference, e.g. person_id:alice_chen or project_id:mnemo.",
                           min_length=1, max_length=200)]
Date = Annotated[str | None, Field(description=f"{FORMS}, e.g. 2026-09-01 or 2026-09-01T18:00.", max_length=40)]


def build_server(namespace: str, config: str | Path | None = None, client: MemoryClient | None = None) -> MCPServer:
    """An MCP server over one namespace's memory."""
    memory = client or MemoryClient(namespace, config)
    server = StdioMCPServer("mnemo", instructions=INSTRUCTIONS)
    _add_recall_tools(server, memory)
    _add_graph_tools(server, memory)
    _add_resources(server, memory)
    return server


def _add_recall_tools(server: MCPServer, memory: MemoryClient) -> None:
    @server.tool()
    def recall(
        query: Annotated[
            str, Field(description="What to look for, in natural language.", min_length=1, max_length=2000)
        ],
        mode: Annotated[
            Literal["eager", "deliberate"],
            Field(description="eager: fast, one hop; deliberate: two hops, relations, a larger pool."),
        ] = "eager",
        limit: Annotated[int | None, Field(description=f"How many memories to return (default {DEFAULT_LIMIT}).", ge=1,
                                           le=50)] = None,
        k: Annotated[int | None, Field(description="The same as limit (its older name).", ge=1, le=50)] = None,
        min_similarity: Annotated[float | None, Field(
            description="Drop passages whose cosine similarity to the query is below this (-1 to 1).", ge=-1, le=1,
        )] = None,
        since: Date = None,
        until: Date = None,
        project: Project = None,
        session: Session = None,
    ) -> dict[str, Any]:
        """Recall what the user's memory holds about a query: an assembled text, the entity
        references behind it (grounding), and the items with why each was included. A memory that
        holds nothing yet is an error saying to run `mnemo ingest`."""
        with clear_errors():
            check_time_bounds(since, until)  # a malformed request is refused as such first
            memory.check_ingested()
            return memory.recall(query, k=k, limit=limit, min_similarity=min_similarity, mode=mode, since=since,
                                 until=until, project=project, session=session).to_dict()

    @server.tool()
    def remember(
        text: Annotated[
            str,
            Field(
                description="What to remember, in a full sentence; may name entities inline as person_id:alice.",
                min_length=1,
                max_length=20000,
            ),
        ],
        entities: Annotated[
            list[str] | None, Field(description='Entity references to attach, e.g. ["person_id:alice"].')
        ] = None,
        ttl: Annotated[
            float | None, Field(description="Seconds after which recall stops returning it (then it is purged).", gt=0)
        ] = None,
        expires_at: Annotated[
            str | None, Field(description="Or an ISO time (UTC when no zone) when it expires.", max_length=40)
        ] = None,
        scope: Annotated[
            str, Field(description="global, project:<name> or session:<id>; recalled only when asked for.")
        ] = "global",
    ) -> dict[str, Any]:
        """Remember something durably now; the next recall finds it (status `recallable`)."""
        with clear_errors():
            return memory.remember(text, entities or [], expires_at=expires_at, ttl=ttl, scope=scope).to_dict()

    @server.tool()
    def forget(
        memory_id: Annotated[str | None, Field(description="A memory id returned by `remember`.")] = None,
        entity: Annotated[str | None, Field(description="An entity reference to forget entirely.")] = None,
        query: Annotated[str | None, Field(description="Forget the passages this query finds.")] = None,
        title: Annotated[str | None, Field(description="Forget the memory saved under this title (in scope).")] = None,
        scope: Annotated[str | None, Field(
            description="With title: the title's scope (default global). Alone: forget every memory of this scope.",
        )] = None,
        expired: Annotated[bool, Field(description="Forget every memory whose expiry has passed.")] = False,
        confirm: Annotated[
            bool, Field(description="false (default): only show what would be forgotten. true: forget it.")
        ] = False,
    ) -> dict[str, Any]:
        """Forget one memory, an entity, what a query finds, a titled memory, a whole scope or the
        expired memories. Give exactly one of memory_id, entity, query, title, scope, expired.
        Without confirm=true nothing is forgotten: it returns what would be."""
        with clear_errors():
            asked = Forgetting(memory_id, entity, query, title, scope, expired)
            asked.target()
            if not confirm:
                return preview(memory, asked)
            return memory.forget(memory_id, entity, query=query, confirm=True, title=title, scope=scope,
                                 expired=expired).to_dict()

    add_memory_tools(server, memory)


def _add_graph_tools(server: MCPServer, memory: MemoryClient) -> None:
    @server.tool()
    def get_entity(ref: Ref, project: Project = None, session: Session = None) -> dict[str, Any]:
        """An entity: name, kind, aliases, properties (with since and history) and its relations."""
        with clear_errors():
            return memory.get_entity(ref, props=True, relations=True, project=project, session=session)

    @server.tool()
    def explore(
        ref: Ref,
        relation_types: Annotated[
            list[str] | None,
            Field(description='Follow only these relation types (e.g. ["works_at", "knows"]); all when omitted.'),
        ] = None,
        depth: Annotated[int, Field(description="How many hops to go from the entity.", ge=1, le=3)] = 1,
        project: Project = None,
        session: Session = None,
    ) -> dict[str, Any]:
        """The neighbours of an entity in the memory graph, by relation type and depth, with
        each edge's hop; use it to traverse the graph yourself."""
        with clear_errors():
            return explore_graph(memory, ref, relation_types, depth, project=project, session=session)

    @server.tool()
    def timeline(since: Date = None, until: Date = None, project: Project = None,
                 session: Session = None) -> dict[str, Any]:
        """What happened between two dates (notes, journal days, chat conversations); without
        `since`, since the last interaction."""
        with clear_errors():
            return timeline_of(memory, since, until, project=project, session=session)


def _add_resources(server: MCPServer, memory: MemoryClient) -> None:
    @server.resource("mnemo://self", name="self profile", mime_type="application/json")
    def self_resource() -> str:
        """The person whose memory this is: properties and relations."""
        return json.dumps(self_profile(memory), ensure_ascii=False, default=str)

    @server.resource("mnemo://top-of-mind", name="top of mind", mime_type="application/json")
    def top_resource() -> str:
        """What is on the person's mind now (the most-mentioned entities until sleep mode has run)."""
        return json.dumps(top_of_mind(memory), ensure_ascii=False, default=str)


def run(namespace: str, config: str | Path | None = None, transport: str = "stdio",
        host: str = "127.0.0.1", port: int = 8766) -> None:
    """Serve over stdio, or streamable HTTP at http://HOST:PORT/mcp (no authentication of its
    own: keep it on loopback, or put it behind a proxy that authenticates)."""
    server = build_server(namespace, config)
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
