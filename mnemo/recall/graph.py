"""Graph hydration for recall: what the Kùzu graph adds around matched entities and hits.

Recall hydrates from `mnemo.recall.graph_view`, an in-memory view of the graph; this module holds
what hydration answers (`Hydration`) and the same answer read straight from the database
(`hydrate_from_graph`), which defines the view's order: mentions newest first, then by
entity and chunk id; relations by entity, label, other end, role and validity.

Every query here is parameterized (ids and names are data, never Cypher), read-only, and
scoped to one namespace's database. A locked database raises StoreLocked to the caller,
which degrades to vector + full-text results.
"""

from dataclasses import dataclass, field
from typing import Any

from mnemo.stores.graph import GraphStore

RELATION_LIMIT = 200


@dataclass
class Hydration:
    """What the graph says around a query: chunks about its entities, their relations."""

    entity_chunks: dict[str, list[str]] = field(default_factory=dict)
    page_docs: dict[str, str] = field(default_factory=dict)
    relations: list[dict[str, Any]] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    chunk_entities: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    hidden: set[str] = field(default_factory=set)  # entities asked for that the caller may not see


def hydrate_from_graph(
    graph: GraphStore, entities: list[str], hits: list[str], hops: int, as_of: str | None, wait: float,
    limit: int = RELATION_LIMIT,
) -> Hydration:
    """Chunks mentioning the entities, their pages, relations up to `hops` away, and the
    entities the hit chunks mention — in one unit of work on the database."""
    found = Hydration()
    if not (entities or hits) or not graph.path.exists():
        return found
    with graph.reading(wait_seconds=wait) as reader:
        for row in reader.entities_mentioned_in(hits):
            found.chunk_entities.setdefault(row["chunk"], []).append((row["entity"], row["kind"]))
        if not entities:
            return found
        frontier = list(entities)
        seen = set(frontier)
        for _ in range(hops):
            rows = reader.neighbours(frontier, as_of or "", limit)
            found.relations.extend(rows)
            frontier = [r["dst"] for r in rows if r["dst"] not in seen]
            seen.update(frontier)
            found.related.extend(dict.fromkeys(frontier))
        for row in reader.chunks_mentioning(list(entities) + found.related, limit):
            found.entity_chunks.setdefault(row["entity"], []).append(row["chunk"])
        found.page_docs = {r["entity"]: r["doc"] for r in reader.pages_of(list(entities))}
    return found

