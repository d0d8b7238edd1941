"""Questions about one entity or a few, as the client, the assistant's readers and forget ask
them; answers are rows as dicts, named by column."""

from typing import Any

from mnemo.stores.cypher import Reads


class EntityReads(Reads):
    def entity_card(self, entity: str) -> list[dict[str, Any]]:
        """The entity's id, kind, name, aliases, properties and doc_id, with its note's created and
        day (one row per note whose subject it is; none when there is no such entity)."""
        return self._dicts(
            "MATCH (e:Entity) WHERE e.id = $id OPTIONAL MATCH (n:Note)-[:PAGE_OF]->(e) "
            "RETURN e.id AS id, e.kind AS kind, e.name AS name, e.aliases AS aliases, e.properties AS properties, "
            "e.doc_id AS doc_id, n.created AS created, n.day AS day", {"id": entity})

    def has_entity(self, entity: str) -> bool:
        return bool(self._dicts("MATCH (e:Entity) WHERE e.id = $id RETURN e.id AS id", {"id": entity}))

    def entity_pages(self, entity: str, present_only: bool = False) -> list[dict[str, Any]]:
        """The notes whose subject is the entity: id, properties, created, day."""
        present = " AND n.present" if present_only else ""
        return self._dicts(
            f"MATCH (n:Note)-[:PAGE_OF]->(e:Entity) WHERE e.id = $id{present} "
            "RETURN n.id AS id, n.properties AS properties, n.created AS created, n.day AS day", {"id": entity})

    def entity_aliases(self, entity: str) -> list[dict[str, Any]]:
        """The entity's aliases, each with the document that gave it (name, doc)."""
        return self._dicts("MATCH (a:Alias)-[:ALIAS_OF]->(e:Entity) WHERE e.id = $id "
                           "RETURN a.name AS name, a.doc_id AS doc", {"id": entity})

    def entity_relations(self, entity: str) -> list[dict[str, Any]]:
        """The relations from and to the entity: src, type, role, dst, props, validity, observed_at, doc_id."""
        return self._dicts(
            "MATCH (a:Entity)-[r]->(b:Entity) WHERE a.id = $id OR b.id = $id "
            "RETURN a.id AS src, label(r) AS type, r.role AS role, b.id AS dst, r.props AS props, "
            "r.valid_from AS valid_from, r.valid_to AS valid_to, r.observed_at AS observed_at, r.doc_id AS doc_id",
            {"id": entity})

    def relations_touching(self, ids: list[str]) -> list[dict[str, Any]]:
        """The relations from or to any of the entities, with both ends' names and the doc_id."""
        return self._dicts(
            "MATCH (a:Entity)-[r]->(b:Entity) WHERE a.id IN $ids OR b.id IN $ids "
            "RETURN a.id AS src, a.name AS src_name, label(r) AS type, r.role AS role, b.id AS dst, "
            "b.name AS dst_name, r.doc_id AS doc_id", {"ids": ids})

    def most_mentioned(self, limit: int) -> list[dict[str, Any]]:
        """The entities mentioned most (id, name, kind, mentions)."""
        return self._dicts(
            "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) "
            "RETURN e.id AS id, e.name AS name, e.kind AS kind, count(c) AS mentions "
            "ORDER BY mentions DESC, id LIMIT $n", {"n": limit})

    def notes_between(self, since: str, until: str, limit: int) -> list[dict[str, Any]]:
        """Present notes dated (created, else their day) between since and until, newest first."""
        return self._dicts(
            "MATCH (n:Note) WITH n, CASE WHEN n.created IS NULL OR n.created = '' THEN n.day ELSE n.created END AS at "
            "WHERE at IS NOT NULL AND at <> '' AND at >= $since AND at <= $until AND n.present "
            "RETURN n.id AS id, n.title AS title, n.path AS path, n.kind AS kind, at ORDER BY at DESC LIMIT $limit",
            {"since": since, "until": until, "limit": limit})

    def episodes_between(self, since: str, until: str, limit: int) -> list[dict[str, Any]]:
        """Chat episodes started between since and until, newest first."""
        return self._dicts(
            "MATCH (e:Episode) WHERE e.start_time >= $since AND e.start_time <= $until "
            "RETURN e.id AS id, e.doc_id AS doc_id, e.title AS title, e.source AS source, e.start_time AS at, "
            "e.turns AS turns ORDER BY at DESC LIMIT $limit", {"since": since, "until": until, "limit": limit})
