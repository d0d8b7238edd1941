"""Questions about what sleep mode wrote into the graph: communities, period summaries, salience
and the self profile. Rows come in a fixed order (`cypher.ordered_rows`)."""

from typing import Any

from mnemo.stores.cypher import Reads


class SleepReads(Reads):
    def communities(self, cohesion_floor: float) -> list[list[Any]]:
        """(id, level, title, summary, key entities) of each community at or above the cohesion floor
        (every one when the graph holds no cohesion); the first key entity is the one it is named after."""
        cohesive = f"WHERE c.cohesion IS NULL OR c.cohesion >= {cohesion_floor} " \
            if "cohesion" in self.columns_of("Community") else ""
        return self._ordered(f"MATCH (c:Community) {cohesive}RETURN c.id, c.level, c.title, c.summary, c.key_entities")

    def community_members(self) -> list[list[Any]]:
        """(community, entity) of each member."""
        return self._ordered("MATCH (e:Entity)-[:IN_COMMUNITY]->(c:Community) RETURN c.id, e.id")

    def community_citing_notes(self) -> list[list[Any]]:
        """(community, note) of each present note whose passages a community cites."""
        return self._ordered("MATCH (c:Community)-[:CITES]->(:Chunk)<-[:HAS_CHUNK]-(n:Note) WHERE n.present "
                             "RETURN DISTINCT c.id, n.id")

    def subcommunities(self) -> list[list[Any]]:
        """(child, parent) of each community inside another."""
        return self._ordered("MATCH (a:Community)-[:SUBCOMMUNITY_OF]->(b:Community) RETURN a.id, b.id")

    def finest_communities(self, table: str, columns: set[str], cohesion_floor: float) -> list[list[Any]]:
        """(entity, level, title, summary, community) through the edge table from entities to
        communities; `columns`: those the Community table holds (a missing one reads as empty)."""
        level = "c.level" if "level" in columns else "0"
        summary = "c.summary" if "summary" in columns else "''"
        cohesive = f"WHERE c.cohesion IS NULL OR c.cohesion >= {cohesion_floor}" if "cohesion" in columns else ""
        return self._ordered(
            f"MATCH (e:Entity)-[:{table}]->(c:Community) {cohesive} RETURN e.id, {level}, c.title, {summary}, c.id")

    def period_summaries(self) -> list[list[Any]]:
        """(id, level, period, start, end, text) of each week and month summary."""
        return self._ordered("MATCH (s:Summary) WHERE s.level IN ['week', 'month'] "
                             "RETURN s.id, s.level, s.period, s.period_start, s.period_end, s.text")

    def summary_days(self) -> list[list[Any]]:
        """(summary, day) of each day a summary covers (through the summaries below it)."""
        return self._ordered("MATCH (s:Summary)-[:SUMMARIZES*1..3]->(d:Day) RETURN DISTINCT s.id, d.id")

    def current_profile(self) -> list[list[Any]]:
        """(text, entity id, created) of the current self profile, if any."""
        return self._ordered("MATCH (p:SelfProfile) WHERE p.is_current RETURN p.text, p.entity_id, p.created")

    def latest_profile(self) -> list[dict[str, Any]]:
        """The current self profile's text, sections, created and version (the latest, when several)."""
        return self._dicts("MATCH (p:SelfProfile) WHERE p.is_current RETURN p.text AS text, p.sections AS sections, "
                           "p.created AS created, p.version AS version ORDER BY version DESC LIMIT 1")

    def values_of(self, table: str, column: str) -> list[list[Any]]:
        """(id, value) of each node of the table whose column is set."""
        return self._ordered(f"MATCH (n:{table}) WHERE n.{column} IS NOT NULL RETURN n.id, n.{column}")

    def entity_salience(self) -> list[list[Any]]:
        """(entity, score) of each Salience node of an entity."""
        return self._ordered("MATCH (s:Salience) WHERE s.item_kind = 'entity' AND s.score IS NOT NULL "
                             "RETURN s.item_id, s.score")

    def top_of_mind(self, limit: int) -> list[dict[str, Any]]:
        """The entities sleep mode marked top of mind (id, name, kind, score), highest score first."""
        return self._dicts(
            "MATCH (s:Salience) WHERE s.top_of_mind MATCH (e:Entity) WHERE e.id = s.item_id "
            "RETURN e.id AS id, e.name AS name, e.kind AS kind, s.score AS score ORDER BY score DESC, id LIMIT $n",
            {"n": limit})
