"""What an assistant can look at besides recall: the graph around an entity, what happened
between two dates, the self profile, the top-of-mind list and the last interaction.

Every reader degrades instead of failing: a missing graph, a missing table or a graph
locked by the ingest job gives an empty answer with a `degraded` note saying why.

Like recall, every reader shows the memories of global scope and of the `project` and `session`
asked for, none expired: what comes only from other memories (`recall.visibility`) is left out.
"""

import datetime as dt
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from mnemo.client import MemoryClient
from mnemo.documents import slugify
from mnemo.errors import MnemoError, StoreLocked
from mnemo.recall.passage_visibility import visible_scopes
from mnemo.recall.time_bounds import check_time_bounds, until_bound
from mnemo.recall.visibility import Hidden
from mnemo.refs import parse_ref
from mnemo.stores import durable
from mnemo.stores.graph_reader import GraphReader

INTERACTIONS = "interactions.json"
GRAPH_WAIT = 1.0
Rows = list[dict[str, Any]]


def graph_rows(client: MemoryClient, question: Callable[[GraphReader], Rows]) -> tuple[Rows, str | None]:
    """The graph's answer to a question, or no rows and the reason when the graph cannot answer."""
    if not client.graph.path.exists():
        return [], "the graph does not exist yet (nothing ingested)"
    try:
        with client.graph.reading(wait_seconds=GRAPH_WAIT) as graph:
            return question(graph), None
    except StoreLocked:
        return [], "the graph is busy (an ingest run holds it); try again shortly"
    except RuntimeError as exc:  # kuzu: a table or property this graph does not have
        return [], f"the graph cannot answer: {str(exc).splitlines()[0]}"


def hidden_from(client: MemoryClient, project: str | None, session: str | None) -> tuple[Hidden, str | None]:
    """What the caller may not see, or (when the graph cannot tell) every memory's documents and the reason."""
    try:
        return client.hidden(project, session), None
    except StoreLocked:
        return Hidden(client.engine.inbox.hidden_docs(frozenset())), "the graph is busy (an ingest run holds it)"


def explore(client: MemoryClient, ref: str, relation_types: list[str] | None = None, depth: int = 1,
            limit: int = 100, project: str | None = None, session: str | None = None) -> dict[str, Any]:
    """Neighbours of an entity up to `depth` hops, following only `relation_types` when given."""
    if not 1 <= depth <= 3:
        raise MnemoError("depth must be 1, 2 or 3")
    start = parse_ref(ref).entity_id
    hidden, _ = hidden_from(client, project, session)
    if hidden.entity(start):
        return {"entity": start, "depth": depth, "edges": [], "degraded": None}
    wanted = {t.lower() for t in relation_types or []}
    seen, frontier, degraded = {start}, [start], None
    edges: list[dict[str, Any]] = []
    for hop in range(1, depth + 1):
        rows, degraded = graph_rows(client, partial(GraphReader.relations_touching, ids=frontier))
        found: list[str] = []
        for row in rows:
            said = row.pop("doc_id")
            if (wanted and row["type"].lower() not in wanted) or len(edges) >= limit:
                continue
            if hidden.doc(said) or hidden.entity(row["src"]) or hidden.entity(row["dst"]):
                continue
            edges.append({**row, "type": row["type"].lower(), "hop": hop})
            found.extend(x for x in (row["src"], row["dst"]) if x not in seen)
        seen.update(found)
        frontier = list(dict.fromkeys(found))
        if not frontier or degraded:
            break
    return {"entity": start, "depth": depth, "edges": edges, "degraded": degraded}


def timeline(
    client: MemoryClient, since: str | None = None, until: str | None = None, limit: int = 50,
    project: str | None = None, session: str | None = None,
) -> dict[str, Any]:
    """Notes, journal days and chat episodes dated between `since` and `until` (ISO dates or
    times); without `since`, since the last interaction."""
    check_time_bounds(since, until)
    since = since or last_interaction(client) or ""
    hidden = client.engine.inbox.hidden_docs(visible_scopes(project, session))
    window = (since, until_bound(until or ""), limit + len(hidden))
    notes, degraded = graph_rows(client, lambda graph: graph.notes_between(*window))
    episodes, degraded_ep = graph_rows(client, lambda graph: graph.episodes_between(*window))
    notes = [n for n in notes if n["id"] not in hidden][:limit]
    episodes = [{k: v for k, v in e.items() if k != "doc_id"} for e in episodes if e["doc_id"] not in hidden][:limit]
    return {"since": since or None, "until": until, "notes": notes, "episodes": episodes,
            "degraded": degraded or degraded_ep}


def self_profile(client: MemoryClient) -> dict[str, Any]:
    """The person whose memory this is: their entity with properties and relations, and the
    current profile text sleep mode wrote (when it has run)."""
    name = client.config.namespace(client.namespace).self_name
    if not name:
        return {"self": None, "profile": None,
                "degraded": f"no `self` is configured for namespace {client.namespace!r} in mnemo.yaml"}
    ref = f"person_id:{slugify(name)}"
    rows, degraded = graph_rows(client, GraphReader.latest_profile)
    profile = rows[0] if rows else None
    if profile is None:
        degraded = "sleep mode has not written a self profile yet" + (f" ({degraded})" if degraded else "")
    try:
        entity: dict[str, Any] = client.get_entity(ref, props=True, relations=True)
    except (MnemoError, RuntimeError) as exc:
        entity, degraded = {"name": name, "ref": ref}, str(exc)
    return {"self": entity, "profile": profile, "degraded": degraded and f"{degraded} (showing what the graph has)"}


def top_of_mind(client: MemoryClient, limit: int = 10) -> dict[str, Any]:
    """What is on the person's mind: the entities sleep mode marked top of mind (its Salience
    table), otherwise the entities mentioned most (of global scope)."""
    hidden, busy = hidden_from(client, None, None)
    wanted = limit + len(hidden.only)
    rows, _ = graph_rows(client, lambda graph: graph.top_of_mind(wanted))
    if rows:
        return {"source": "sleep", "items": _shown(rows, hidden, busy, limit), "degraded": busy}
    rows, degraded = graph_rows(client, lambda graph: graph.most_mentioned(wanted))
    note = "no top-of-mind list from sleep mode yet; showing the most-mentioned entities"
    return {"source": "mentions", "items": _shown(rows, hidden, busy, limit), "degraded": degraded or note}


def _shown(rows: list[dict[str, Any]], hidden: Hidden, busy: str | None, limit: int) -> list[dict[str, Any]]:
    """The rows of entities the caller may see (none when the graph cannot tell which and there are memories)."""
    return [] if busy and hidden.docs else [r for r in rows if not hidden.entity(r["id"])][:limit]


def last_interaction(client: MemoryClient) -> str | None:
    """When the assistant last talked with this namespace (ISO time), if ever."""
    path = Path(client.files.root) / INTERACTIONS
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("last")
    except (OSError, ValueError, AttributeError):
        return None


def mark_interaction(client: MemoryClient, now: dt.datetime) -> None:
    """Record `now` as the last interaction (atomic replace)."""
    last = {"last": now.isoformat(timespec="seconds")}
    durable.write_json(Path(client.files.root) / INTERACTIONS, last, "activity:interactions", indent=None)
