"""Questions recall asks the graph: the whole view it keeps in memory (read as Arrow columns), and
hydration around a query's entities and hits, in the order hydration answers in (see
mnemo.recall.graph). Ids and names are parameters, never Cypher."""

from typing import Any

from mnemo.stores.cypher import Reads


class RecallReads(Reads):
    # -- the whole graph, for recall's view of it --------------------------------------------

    def entity_kinds_and_names(self) -> list[tuple[Any, ...]]:
        """(id, kind, name) of every entity."""
        return self._arrow("MATCH (e:Entity) RETURN e.id, e.kind, e.name")

    def mentions_newest_first(self) -> list[tuple[Any, ...]]:
        """(chunk, entity) of each mention, newest chunk first."""
        return self._arrow(
            "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) RETURN c.id, e.id ORDER BY c.timestamp DESC, e.id, c.id")

    def mentions_by_chunk(self) -> list[tuple[Any, ...]]:
        """(chunk, entity, entity kind) of each mention, by chunk."""
        return self._arrow("MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) RETURN c.id, e.id, e.kind ORDER BY c.id, e.id")

    def relations_both_ways(self) -> list[tuple[Any, ...]]:
        """(entity, label, role, valid_from, valid_to, other entity, doc_id) of each relation, seen from each end."""
        return self._arrow(
            "MATCH (a:Entity)-[r]-(b:Entity) RETURN a.id, label(r), r.role, r.valid_from, r.valid_to, b.id, r.doc_id "
            "ORDER BY a.id, label(r), b.id, r.role, r.valid_from, r.valid_to")

    def pages_by_entity(self) -> list[tuple[Any, ...]]:
        """(entity, note) of each note whose subject is the entity."""
        return self._arrow("MATCH (n:Note)-[:PAGE_OF]->(e:Entity) RETURN e.id, n.id ORDER BY e.id, n.id")

    def notes_of_source(self, source: str) -> list[tuple[Any, ...]]:
        """(id,) of each note of the source."""
        return self._arrow("MATCH (n:Note) WHERE n.source = $source RETURN n.id", {"source": source})

    def entity_documents(self) -> list[tuple[Any, ...]]:
        """(entity, document) of each document whose passages point at the entity (mentions,
        speakers, promotions)."""
        return self._arrow("MATCH (c:Chunk)-[]->(e:Entity) RETURN DISTINCT e.id, c.doc_id")

    # -- hydration around a query ------------------------------------------------------------

    def chunks_mentioning(self, ids: list[str], limit: int) -> list[dict[str, Any]]:
        """(entity, chunk, ts) of the chunks mentioning the entities, newest first."""
        return self._dicts(
            "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE e.id IN $ids "
            "RETURN e.id AS entity, c.id AS chunk, c.timestamp AS ts ORDER BY ts DESC, entity, chunk LIMIT $limit",
            {"ids": ids, "limit": limit})

    def pages_of(self, ids: list[str]) -> list[dict[str, Any]]:
        """(entity, doc) of each note whose subject is one of the entities."""
        return self._dicts("MATCH (n:Note)-[:PAGE_OF]->(e:Entity) WHERE e.id IN $ids "
                           "RETURN e.id AS entity, n.id AS doc ORDER BY entity, doc", {"ids": ids})

    def entities_mentioned_in(self, ids: list[str]) -> list[dict[str, Any]]:
        """(chunk, entity, kind) of the entities the chunks mention."""
        return self._dicts("MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE c.id IN $ids "
                           "RETURN c.id AS chunk, e.id AS entity, e.kind AS kind ORDER BY chunk, entity", {"ids": ids})

    def neighbours(self, ids: list[str], as_of: str, limit: int) -> list[dict[str, Any]]:
        """(src, rel, role, dst, kind, name) of the relations of the entities valid at `as_of`
        (any time when empty)."""
        return self._dicts(
            "MATCH (a:Entity)-[r]-(b:Entity) WHERE a.id IN $ids "
            "AND (r.valid_from IS NULL OR r.valid_from = '' OR $as_of = '' OR r.valid_from <= $as_of) "
            "AND (r.valid_to IS NULL OR r.valid_to = '' OR $as_of = '' OR r.valid_to > $as_of) "
            "RETURN a.id AS src, label(r) AS rel, r.role AS role, b.id AS dst, b.kind AS kind, b.name AS name "
            "ORDER BY src, rel, dst, role, r.valid_from, r.valid_to LIMIT $limit",
            {"ids": ids, "as_of": as_of, "limit": limit})
