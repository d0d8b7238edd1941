"""Questions about notes, their passages, links and days, as write-back asks them: each answer's
rows come in a fixed order (`cypher.ordered_rows`), so what is built from them is the same each run."""

from typing import Any

from mnemo.stores.cypher import Reads


class NoteReads(Reads):
    def notes_with_paths(self) -> list[list[Any]]:
        """(id, source, path, title, properties, kind, day) of each present note that has a file."""
        return self._ordered("MATCH (n:Note) WHERE n.present AND n.path <> '' "
                             "RETURN n.id, n.source, n.path, n.title, n.properties, n.kind, n.day")

    def note_files(self) -> list[list[Any]]:
        """(id, source, path) of each present note that has a file."""
        return self._ordered("MATCH (n:Note) WHERE n.present AND n.path <> '' RETURN n.id, n.source, n.path")

    def note_dates(self) -> list[list[Any]]:
        """(id, day, created, properties) of each present note that has a file."""
        return self._rows("MATCH (n:Note) WHERE n.present AND n.path <> '' "
                          "RETURN n.id, n.day, n.created, n.properties")

    def note_passages(self) -> list[list[Any]]:
        """(note id, passage text) of each passage of a present note."""
        return self._ordered("MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk) WHERE n.present RETURN n.id, c.text")

    def first_passages(self, ids: list[str], first: int) -> list[list[Any]]:
        """(note id, position, text) of the passages before position `first` of the notes, by position."""
        return self._rows("MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk) WHERE n.id IN $ids AND c.position < $first "
                          "RETURN n.id, c.position, c.text ORDER BY c.position", {"ids": ids, "first": first})

    def note_links(self) -> list[list[Any]]:
        """(from note, to note) of each link between two present notes."""
        return self._ordered("MATCH (a:Note)-[:LINKS_TO]->(b:Note) WHERE a.present AND b.present RETURN a.id, b.id")

    def note_mention_counts(self) -> list[list[Any]]:
        """(note, entity, how many of the note's passages mention it)."""
        return self._ordered(
            "MATCH (n:Note)-[:HAS_CHUNK]->(:Chunk)-[:MENTIONS]->(e:Entity) RETURN n.id, e.id, count(*)")

    def pages_of_entities(self, present_only: bool = False) -> list[list[Any]]:
        """(note, entity) of each note whose subject is the entity (only present notes, when asked)."""
        present = "WHERE n.present " if present_only else ""
        return self._ordered(f"MATCH (n:Note)-[:PAGE_OF]->(e:Entity) {present}RETURN n.id, e.id")

    def entity_names(self) -> list[list[Any]]:
        """(id, name) of every entity."""
        return self._ordered("MATCH (e:Entity) RETURN e.id, e.name")

    def entities_with_docs(self) -> list[list[Any]]:
        """(id, kind, name, doc_id) of every entity."""
        return self._ordered("MATCH (e:Entity) RETURN e.id, e.kind, e.name, e.doc_id")

    def entity_relation_ends(self, table: str) -> list[list[Any]]:
        """(from entity, to entity, doc_id) of each relation of the edge table."""
        return self._ordered(f"MATCH (a:Entity)-[r:{table}]->(b:Entity) RETURN a.id, b.id, r.doc_id")

    def journal_notes_by_day(self) -> list[list[Any]]:
        """(day, note) of each present journal note."""
        return self._ordered(
            "MATCH (n:Note)-[:ON_DAY]->(d:Day) WHERE n.present AND n.kind = 'journal' RETURN d.id, n.id")

    def chats_by_day(self) -> list[list[Any]]:
        """(day, chat title) of each chat episode."""
        return self._ordered("MATCH (e:Episode)-[:ON_DAY]->(d:Day) RETURN d.id, e.title")

    def chat_mentions(self) -> list[list[Any]]:
        """(entity, chat title, chat start) of each chat whose passages mention the entity."""
        return self._ordered("MATCH (c:Chunk)-[:IN_EPISODE]->(ep:Episode), (c)-[:MENTIONS]->(e:Entity) "
                             "RETURN DISTINCT e.id, ep.title, ep.start_time")
