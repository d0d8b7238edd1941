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

_MENTIONED_BY = (
    "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE e.id IN $ids "
    "RETURN e.id AS entity, c.id AS chunk, c.timestamp AS ts ORDER BY ts DESC, entity, chunk LIMIT $limit"
)
_PAGES = (
    "MATCH (n:Note)-[:PAGE_OF]->(e:Entity) WHERE e.id IN $ids RETURN e.id AS entity, n.id AS doc ORDER BY entity, doc"
)
_MENTIONS_OF = (
    "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE c.id IN $ids "
    "RETURN c.id AS chunk, e.id AS entity, e.kind AS kind ORDER BY chunk, entity"
)
_NEIGHBOURS = (
    "MATCH (a:Entity)-[r]-(b:Entity) WHERE a.id IN $ids "
    "AND (r.valid_from IS NULL OR r.valid_from = '' OR $as_of = '' OR r.valid_from <= $as_of) "
    "AND (r.valid_to IS NULL OR r.valid_to = '' OR $as_of = '' OR r.valid_to > $as_of) "
    "RETURN a.id AS src, label(r) AS rel, r.role AS role, b.id AS dst, b.kind AS kind, b.name AS name "
    "ORDER BY src, rel, dst, role, r.valid_from, r.valid_to LIMIT $limit"
)
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
    with graph.connect(read_only=True, wait_seconds=wait) as conn:
        for row in _query(conn, _MENTIONS_OF, {"ids": hits}):
            found.chunk_entities.setdefault(row["chunk"], []).append((row["entity"], row["kind"]))
        if not entities:
            return found
        frontier = list(entities)
        seen = set(frontier)
        for _ in range(hops):
            rows = _query(conn, _NEIGHBOURS, {"ids": frontier, "as_of": as_of or "", "limit": limit})
            found.relations.extend(rows)
            frontier = [r["dst"] for r in rows if r["dst"] not in seen]
            seen.update(frontier)
            found.related.extend(dict.fromkeys(frontier))
        for row in _query(conn, _MENTIONED_BY, {"ids": list(entities) + found.related, "limit": limit}):
            found.entity_chunks.setdefault(row["entity"], []).append(row["chunk"])
        found.page_docs = {r["entity"]: r["doc"] for r in _query(conn, _PAGES, {"ids": list(entities)})}
    return found


def _query(conn: Any, cypher: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    result = conn.execute(cypher, params)
    names = result.get_column_names()
    rows = []
    while result.has_next():
        rows.append(dict(zip(names, result.get_next())))
    return rows
