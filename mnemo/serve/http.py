"""The HTTP API for apps that are not Python (FastAPI, served by uvicorn: `mnemo serve`).

Every route is under `/v1/{namespace}/` and needs `Authorization: Bearer <key>` with a key
made by `mnemo keys create NAMESPACE`: no or an unknown key is 401, a key for another
namespace is 403, both with no data. Bodies over `max_body` bytes are 413. A server of one shard
(`$MNEMO_SHARD`) answers a namespace another shard holds with 421 Misdirected Request, naming that
shard and its URL in the body and the `Mnemo-Shard` header, before any key is looked at.
"""

from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from mnemo.client import MemoryClient
from mnemo.config import MnemoConfig, load_config
from mnemo.errors import MisplacedNamespace, MnemoError, NotIngested, StoreLocked, UnknownNamespace
from mnemo.recall.limit import DEFAULT_LIMIT
from mnemo.recall.time_bounds import FORMS, check_time_bounds
from mnemo.serve.activity import timeline
from mnemo.serve.api_keys import KeyStore
from mnemo.serve.hooks import before_turn
from mnemo.serve.http_memories import memory_routes

MAX_BODY = 64 * 1024
NS = Annotated[str, PathParam(min_length=1, max_length=64, description="The namespace (must match the key's).")]
REF = Annotated[
    str, PathParam(min_length=1, max_length=200, description="An entity reference, e.g. person_id:alice_chen.")
]
SIMILARITY = "Drop passages whose cosine similarity to q is below this (-1 to 1)."
TIME = Annotated[str | None, Query(max_length=40, description=f"{FORMS} (else 400).")]
PROJECT = Annotated[str | None, Query(max_length=100, description="Also the memories of this project.")]
SESSION = Annotated[str | None, Query(max_length=100, description="Also the memories of this session.")]


class RememberBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(
        min_length=1, max_length=20_000, description="What to remember; may name entities inline as person_id:alice."
    )
    entities: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=50, description="Entity references to attach."
    )
    ttl: float | None = Field(
        default=None, gt=0, description="Seconds after which recall stops returning the memory (then it is purged)."
    )
    expires_at: str | None = Field(
        default=None, max_length=40, description="Or an ISO time (UTC when it has no zone) when the memory expires."
    )
    scope: str = Field(
        default="global", max_length=120, description="global, project:<name> or session:<id>; recalled when asked for."
    )


class Problem(BaseModel):
    detail: str


class Misdirected(BaseModel):
    detail: str
    shard: str = Field(description="The shard that holds the namespace.")
    url: str = Field(description="Where that shard's server answers (empty when not configured).")


class BodyLimit:
    """ASGI middleware: a request body larger than `limit` bytes gets 413 before any route runs."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await self._too_large(receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                return await self._too_large(receive, send)
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _too_large(self, receive: Any, send: Any) -> None:
        response = JSONResponse({"detail": f"request body too large (limit {self.limit} bytes)"}, status_code=413)
        await response({"type": "http"}, receive, send)


def create_app(config: MnemoConfig | str | Path | None = None, max_body: int = MAX_BODY) -> FastAPI:
    """The API app for one configuration (all its namespaces, each behind its own keys)."""
    settings = config if isinstance(config, MnemoConfig) else load_config(config)
    keys = KeyStore(settings.data_dir)
    clients: dict[str, MemoryClient] = {}
    app = FastAPI(
        title="mnemo",
        version="1",
        description="Recall, remember and forget in one person's memory.",
        responses={
            400: {"model": Problem},
            401: {"model": Problem},
            403: {"model": Problem},
            404: {"model": Problem},
            409: {"model": Problem},
            413: {"model": Problem},
            421: {"model": Misdirected},
            422: {"description": "Invalid input"},
        },
    )
    app.add_middleware(BodyLimit, limit=max_body)

    def client(request: Request, namespace: NS) -> MemoryClient:
        settings.check_holds(namespace)
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        granted = keys.namespace_of(token.strip()) if scheme.lower() == "bearer" else None
        if granted is None:
            raise HTTPException(401, "missing or invalid API key", headers={"WWW-Authenticate": "Bearer"})
        if granted != namespace:
            raise HTTPException(403, "this key does not grant that namespace")
        if namespace not in clients:
            clients[namespace] = MemoryClient(namespace, settings)
        return clients[namespace]

    Client = Annotated[MemoryClient, Depends(client)]

    @app.exception_handler(MisplacedNamespace)
    async def misplaced(request: Request, exc: MisplacedNamespace) -> JSONResponse:
        return JSONResponse({"detail": str(exc), "shard": exc.shard, "url": exc.url}, status_code=421,
                            headers={"Mnemo-Shard": exc.shard, **({"Mnemo-Shard-URL": exc.url} if exc.url else {})})

    @app.exception_handler(UnknownNamespace)
    async def unknown(request: Request, exc: UnknownNamespace) -> JSONResponse:
        return JSONResponse({"detail": f"namespace {exc.namespace!r} is not configured here"}, status_code=404)

    @app.exception_handler(MnemoError)
    async def mnemo_error(request: Request, exc: MnemoError) -> JSONResponse:
        if isinstance(exc, StoreLocked):
            return JSONResponse({"detail": str(exc)}, status_code=503, headers={"Retry-After": "5"})
        if isinstance(exc, NotIngested):
            return JSONResponse({"detail": str(exc)}, status_code=409)
        return JSONResponse({"detail": str(exc)}, status_code=404 if str(exc).startswith("no ") else 400)

    @app.exception_handler(ValueError)
    async def value_error(request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    _write_routes(app, Client)
    _read_routes(app, Client)
    memory_routes(app, Client)
    return app


def _write_routes(app: FastAPI, Client: Any) -> None:  # noqa: N803 - a type alias
    @app.post("/v1/{namespace}/memories", status_code=201, summary="Remember")
    def remember(c: Client, body: RememberBody) -> dict[str, Any]:
        """Write a memory now; recallable by the next recall (status `recallable`)."""
        return c.remember(body.text, body.entities, expires_at=body.expires_at, ttl=body.ttl,
                          scope=body.scope).to_dict()

    @app.delete("/v1/{namespace}/memories/{memory_id}", summary="Forget a memory")
    def forget_memory(c: Client, memory_id: Annotated[str, PathParam(max_length=100)]) -> dict[str, Any]:
        return c.forget(memory=memory_id).to_dict()

    @app.delete("/v1/{namespace}/entities/{ref}", summary="Forget an entity")
    def forget_entity(c: Client, ref: REF) -> dict[str, Any]:
        """Forget the entity, its page and what only it supports."""
        return c.forget(entity=ref).to_dict()



def _read_routes(app: FastAPI, Client: Any) -> None:  # noqa: N803 - a type alias
    @app.get("/v1/{namespace}/entities/{ref}", summary="An entity")
    def entity(c: Client, ref: REF, project: PROJECT = None, session: SESSION = None) -> dict[str, Any]:
        """Name, kind, aliases, properties (with since) and relations of an entity (what only the
        memories of other projects and sessions say left out)."""
        return c.get_entity(ref, props=True, relations=True, project=project, session=session)

    @app.get("/v1/{namespace}/recall", summary="Recall")
    def recall(c: Client, q: Annotated[str, Query(min_length=1, max_length=2000, pattern=r"\S")],
               limit: Annotated[int | None,
                                Query(ge=1, le=50, description=f"How many items (default {DEFAULT_LIMIT}).")] = None,
               k: Annotated[int | None, Query(ge=1, le=50, description="The same as limit.")] = None,
               min_similarity: Annotated[float | None, Query(ge=-1, le=1, description=SIMILARITY)] = None,
               mode: Literal["eager", "deliberate"] = "eager",
               since: TIME = None, until: TIME = None, project: PROJECT = None,
               session: SESSION = None) -> dict[str, Any]:
        """What memory holds about `q` (and the memories of `project`/`session`): assembled text,
        grounding references and the items, each passage with its `similarity` to `q`. A namespace
        that holds nothing yet (never ingested, nothing remembered) is 409, saying to run `mnemo ingest`."""
        check_time_bounds(since, until)  # a malformed request is refused as such first
        c.check_ingested()
        return c.recall(q, k=k, limit=limit, min_similarity=min_similarity, mode=mode, since=since, until=until,
                        project=project, session=session).to_dict()

    @app.get("/v1/{namespace}/context", summary="Context for a chat turn")
    def context(c: Client, message: Annotated[str, Query(max_length=4000)] = "",
                budget: Annotated[int, Query(ge=50, le=4000)] = 800) -> dict[str, str]:
        """The before_turn block for the system prompt, for the latest user message."""
        messages = [{"role": "user", "content": message}] if message else []
        return {"context": before_turn(c.namespace, messages, client=c, token_budget=budget)}

    @app.get("/v1/{namespace}/timeline", summary="What happened between two dates")
    def when(c: Client, since: TIME = None, until: TIME = None, project: PROJECT = None,
             session: SESSION = None) -> dict[str, Any]:
        return timeline(c, since, until, project=project, session=session)
