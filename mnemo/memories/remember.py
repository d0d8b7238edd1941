"""Remember: a memory checked and written to the inbox, then made recallable at once.

`remember` validates what it is given (text, entities, scope, expiry), writes the memory file
durably first (`mnemo.sources.memory_files`), then puts the passages the next ingest run will
make for it into the namespace's `chunks` table (`mnemo.ingest.memory_rows`), so the next recall,
in any process, finds it. Its entities and relations join the graph at that ingest run.
"""

import datetime as dt
import re
from pathlib import Path
from typing import Any

from mnemo.documents import content_hash
from mnemo.errors import MnemoError, StoreLocked
from mnemo.ingest.memory_rows import memory_groups
from mnemo.refs import EntityRef, parse_ref, refs_in
from mnemo.sources.memory_files import GLOBAL, Memory, iso_utc, store_memory
from mnemo.stores.embedders import Embedder
from mnemo.stores.vectors import VectorStore

LIVE_WAIT_SECONDS = 10.0  # how long remember waits for a sync holding the chunks table
_SCOPE = re.compile(r"global|(project|session):[\w.-]{1,100}")


def check_scope(scope: str) -> str:
    """A memory's scope: `global`, `project:<name>` or `session:<id>` (letters, digits, `_.-`)."""
    if not isinstance(scope, str) or not _SCOPE.fullmatch(scope):
        raise MnemoError(f"invalid scope {scope!r}: use global, project:<name> or session:<id>")
    return scope


def _relation(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict) or not isinstance(raw.get("role"), str) or not isinstance(raw.get("target"), str):
        raise MnemoError(f"invalid relation {raw!r}: use {{'role': 'works_at', 'target': 'organization_id:acme'}}")
    target = parse_ref(raw["target"])
    return {"role": raw["role"], "target": target.ref, "properties": dict(raw.get("properties") or {})}


def parse_entity(raw: Any) -> EntityRef:
    """An entity given as `"person_id:alice"`, `{"person_id": "alice", ...}` or `{"kind": ..., "id": ...}`."""
    if isinstance(raw, str):
        return parse_ref(raw)
    if not isinstance(raw, dict):
        raise MnemoError(f"invalid entity {raw!r}: give a reference string or a mapping")
    if "kind" in raw and "id" in raw:
        base = parse_ref(f"{raw['kind']}_id:{raw['id']}")
    else:
        keys = [k for k in raw if isinstance(k, str) and k.endswith("_id")]
        if len(keys) != 1:
            raise MnemoError(f"invalid entity {raw!r}: name it with one '<kind>_id' key or 'kind' and 'id'")
        base = parse_ref(f"{keys[0]}:{raw[keys[0]]}")
    properties = raw.get("properties") or {}
    if not isinstance(properties, dict):
        raise MnemoError(f"invalid properties for {base.ref}: expected a mapping")
    relations = [_relation(r) for r in raw.get("relations") or []]
    return EntityRef(base.kind, base.slug, dict(properties), relations)


def expiry_time(expires_at: str | dt.datetime | None, ttl: float | None, now: dt.datetime) -> str | None:
    """When a memory given `expires_at` (an ISO time or datetime; without a zone, UTC) or `ttl`
    (seconds from `now`) expires, as an ISO time in UTC; None when neither is given."""
    if expires_at is not None and ttl is not None:
        raise MnemoError("give expires_at or ttl, not both")
    if ttl is not None:
        if not ttl > 0:
            raise MnemoError(f"invalid ttl {ttl!r}: give a positive number of seconds")
        try:
            return iso_utc(now + dt.timedelta(seconds=ttl))
        except OverflowError:
            raise MnemoError(f"invalid ttl {ttl!r}: too long (the expiry would be after the year 9999)") from None
    if expires_at is None:
        return None
    try:
        moment = expires_at if isinstance(expires_at, dt.datetime) else dt.datetime.fromisoformat(expires_at)
    except (TypeError, ValueError):
        raise MnemoError(f"invalid expires_at {expires_at!r}: use an ISO time like 2026-12-01T09:00:00Z") from None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    if moment <= now:
        raise MnemoError(f"expires_at {expires_at} is not in the future: nothing would be remembered")
    return iso_utc(moment)


def new_memory(namespace: str, text: str, entities: list[Any] | None = None,
               expires_at: str | dt.datetime | None = None, ttl: float | None = None,
               scope: str = GLOBAL) -> Memory:
    """A validated memory (not yet written), with a content-addressed id and status `processing`."""
    check_scope(scope)
    if not isinstance(text, str) or not text.strip():
        raise MnemoError("nothing to remember: the text is empty")
    refs = refs_in(text)
    given = [parse_entity(e) for e in entities or []]
    merged = {r.ref: r for r in refs} | {e.ref: e for e in given}
    now = dt.datetime.now(dt.UTC)
    created = iso_utc(now)
    return Memory(
        "mem_" + content_hash(namespace, text, created), namespace, text.strip(), created, list(merged.values()),
        expires_at=expiry_time(expires_at, ttl, now), scope=scope,
    )


def write_memory(root: Path, namespace: str, text: str, entities: list[Any] | None = None,
                 expires_at: str | dt.datetime | None = None, ttl: float | None = None,
                 scope: str = GLOBAL) -> Memory:
    """Validate and write a memory to the inbox atomically; return it with status `processing`."""
    return store_memory(root, new_memory(namespace, text, entities, expires_at, ttl, scope))


def make_recallable(vectors: VectorStore, embedder: Embedder, memory: Memory, max_words: int,
                    wait_seconds: float = LIVE_WAIT_SECONDS) -> Memory:
    """Put the memory's passages into the chunks table; its status becomes `recallable`. When a
    sync holds the table longer than `wait_seconds` it stays `processing` (it is in the inbox,
    and the next ingest run makes it recallable)."""
    try:
        vectors.put_groups("chunks", memory_groups(memory, max_words), embedder, wait_seconds=wait_seconds)
    except StoreLocked:
        return memory
    memory.status = "recallable"
    return memory
