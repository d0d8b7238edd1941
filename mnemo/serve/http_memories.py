"""The HTTP routes for memories by scope and by title (see `mnemo.serve.http`).

By scope (a room is a scope): `GET /v1/{ns}/memories?scope=` lists them (`list`, `get_all`),
`GET /v1/{ns}/memories/{id}?scope=` is one (`get_memory`), `DELETE /v1/{ns}/memories?scope=`
forgets a scope (`clear`) and `DELETE /v1/{ns}/memories?expired=true` the expired memories.
By title: `PUT /v1/{ns}/titled` saves, `GET /v1/{ns}/titled?title=&scope=` reads,
`GET /v1/{ns}/titled/exists` answers `exists`, `POST /v1/{ns}/titled/append` appends and
`DELETE /v1/{ns}/titled?title=&scope=` forgets.
"""

from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi import Path as PathParam
from pydantic import BaseModel, ConfigDict, Field

from mnemo.errors import MnemoError

SCOPE = Annotated[str, Query(max_length=120, description="global, project:<name> or session:<id> (a room).")]
SOME_SCOPE = Annotated[str | None, Query(max_length=120, description="Only this scope (a room); all when omitted.")]
TITLE = Annotated[str, Query(min_length=1, max_length=200, description="The memory's title.")]


class SaveBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1, max_length=200, description="Unique (by its slug) within the scope.")
    text: str = Field(min_length=1, max_length=20_000, description="The memory's text.")
    scope: str = Field(default="global", max_length=120, description="global, project:<name> or session:<id>.")
    ttl: float | None = Field(default=None, gt=0, description="Seconds after which recall stops returning it.")
    expires_at: str | None = Field(default=None, max_length=40, description="Or an ISO time when it expires.")


class AppendBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1, max_length=200, description="The title of a saved memory.")
    text: str = Field(min_length=1, max_length=20_000, description="The text to add at its end.")
    scope: str = Field(default="global", max_length=120, description="The title's scope.")


def memory_routes(app: FastAPI, Client: Any) -> None:  # noqa: N803 - a type alias
    _scope_routes(app, Client)
    _title_routes(app, Client)


def _scope_routes(app: FastAPI, Client: Any) -> None:  # noqa: N803 - a type alias
    @app.get("/v1/{namespace}/memories", summary="List memories (of a scope)")
    def list_memories(c: Client, scope: SOME_SCOPE = None) -> dict[str, Any]:
        """The remembered and saved memories, oldest first, with scope, status and expiry."""
        return {"memories": [m.to_dict() for m in c.list(scope)]}

    @app.get("/v1/{namespace}/memories/{memory_id}", summary="A memory and its status")
    def get_memory(c: Client, memory_id: Annotated[str, PathParam(max_length=100)],
                   scope: SOME_SCOPE = None) -> dict[str, Any]:
        """A memory by id (only in `scope` when given), with its status and expiry."""
        return c.get_memory(memory_id, scope).to_dict()

    @app.delete("/v1/{namespace}/memories", summary="Forget a scope's memories, or the expired ones")
    def forget_memories(c: Client, scope: SOME_SCOPE = None, expired: bool = False) -> dict[str, Any]:
        """Forget every memory of `scope` (clear a room), or with `expired=true` every expired memory."""
        if (scope is None) == (not expired):
            raise MnemoError("give scope or expired=true (one of them)")
        return c.forget(expired=True).to_dict() if expired else c.clear(scope or "").to_dict()


def _title_routes(app: FastAPI, Client: Any) -> None:  # noqa: N803 - a type alias
    @app.put("/v1/{namespace}/titled", summary="Save a memory by title")
    def save(c: Client, body: SaveBody) -> dict[str, Any]:
        """A new memory, or the text of the one with that title replaced (the old text in its history)."""
        return c.save(body.title, body.text, body.scope, expires_at=body.expires_at, ttl=body.ttl).to_dict()

    @app.get("/v1/{namespace}/titled", summary="Read a memory by title")
    def read(c: Client, title: TITLE, scope: SCOPE = "global") -> dict[str, Any]:
        return c.read(title, scope).to_dict()

    @app.get("/v1/{namespace}/titled/exists", summary="Whether a title is saved")
    def exists(c: Client, title: TITLE, scope: SCOPE = "global") -> dict[str, bool]:
        return {"exists": c.exists(title, scope)}

    @app.post("/v1/{namespace}/titled/append", summary="Append to a memory by title")
    def append(c: Client, body: AppendBody) -> dict[str, Any]:
        return c.append(body.title, body.text, body.scope).to_dict()

    @app.delete("/v1/{namespace}/titled", summary="Forget a memory by title")
    def forget_title(c: Client, title: TITLE, scope: SCOPE = "global") -> dict[str, Any]:
        return c.forget(title=title, scope=scope).to_dict()
