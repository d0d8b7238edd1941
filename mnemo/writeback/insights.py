"""What mnemo knows about each note, read from the namespace's graph.

For every note that exists: the entities it is about (its PAGE_OF entities), the entities
its passages mention, the notes most related to it (links either way, shared entities,
relations between their entities), and — when sleep mode has put them in the graph — its
community's title, a one-line summary and a salience score. Whatever the graph does not
hold is left out.
"""

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import kuzu

from mnemo.stores.cypher import single
from mnemo.stores.graph import GraphStore

_LINK_WEIGHT = 3.0
_RELATION_WEIGHT = 2.0
_SUMMARY_CHARS = 240


@dataclass(frozen=True)
class NoteRef:
    id: str
    source: str
    path: str
    title: str
    properties: dict[str, Any]


@dataclass(frozen=True)
class NoteInsight:
    note: NoteRef
    about: tuple[str, ...]
    mentions: tuple[str, ...]
    related: tuple[NoteRef, ...]
    community: str | None = None
    summary: str | None = None
    salience: float | None = None


def inline_ref(entity_id: str, kind: str) -> str:
    """`person_alice_chen` of kind person -> `person_id:alice_chen` (the grounding form)."""
    prefix = kind + "_"
    return f"{kind}_id:{entity_id[len(prefix):]}" if entity_id.startswith(prefix) else entity_id


def _rows(conn: kuzu.Connection, cypher: str) -> list[list[Any]]:
    result = single(conn.execute(cypher))
    rows = []
    while result.has_next():
        rows.append(list(result.get_next()))
    return rows


@dataclass
class _Graph:
    notes: dict[str, NoteRef]
    entities: dict[str, tuple[str, str, str]]
    pages: dict[str, list[str]]
    mentions: dict[str, Counter[str]]
    links: dict[str, set[str]]
    relations: dict[str, set[str]]


def _load(conn: kuzu.Connection, store: GraphStore) -> _Graph:
    notes = {
        r[0]: NoteRef(r[0], r[1], r[2], r[3], json.loads(r[4] or "{}"))
        for r in _rows(
            conn, "MATCH (n:Note) WHERE n.present AND n.path <> '' RETURN n.id, n.source, n.path, n.title, n.properties"
        )
    }
    entities = {
        r[0]: (r[1], r[2], r[3] or "") for r in _rows(conn, "MATCH (e:Entity) RETURN e.id, e.kind, e.name, e.doc_id")
    }
    pages: dict[str, list[str]] = defaultdict(list)
    for note, entity in _rows(conn, "MATCH (n:Note)-[:PAGE_OF]->(e:Entity) RETURN n.id, e.id"):
        pages[note].append(entity)
    mentions: dict[str, Counter[str]] = defaultdict(Counter)
    cypher = "MATCH (n:Note)-[:HAS_CHUNK]->(:Chunk)-[:MENTIONS]->(e:Entity) RETURN n.id, e.id, count(*)"
    for note, entity, count in _rows(conn, cypher):
        mentions[note][entity] += count
    links: dict[str, set[str]] = defaultdict(set)
    for a, b in _rows(conn, "MATCH (a:Note)-[:LINKS_TO]->(b:Note) WHERE a.present AND b.present RETURN a.id, b.id"):
        links[a].add(b)
        links[b].add(a)
    relations: dict[str, set[str]] = defaultdict(set)
    for table, pairs in store.edge_tables.items():
        if ("Entity", "Entity") in pairs:
            for a, b in _rows(conn, f"MATCH (a:Entity)-[:{table}]->(b:Entity) RETURN a.id, b.id"):
                relations[a].add(b)
                relations[b].add(a)
    return _Graph(notes, entities, pages, mentions, links, relations)


def _related(
    graph: _Graph, note: NoteRef, page_of: dict[str, str], mentioned_by: dict[str, set[str]], limit: int
) -> tuple[NoteRef, ...]:
    """The notes most related to `note`: linked, sharing entities, or pages of related entities."""
    scores: defaultdict[str, float] = defaultdict(float)
    for other in graph.links.get(note.id, ()):
        scores[other] += _LINK_WEIGHT
    for entity in graph.mentions.get(note.id, ()):
        if entity in page_of:
            scores[page_of[entity]] += _RELATION_WEIGHT
        sharing = mentioned_by[entity]
        for other in sharing:
            scores[other] += 1.0 / len(sharing)
    for entity in graph.pages.get(note.id, ()):
        for neighbour in graph.relations.get(entity, ()):
            if neighbour in page_of:
                scores[page_of[neighbour]] += _RELATION_WEIGHT
    candidates = [
        graph.notes[n] for n in scores
        if n != note.id and n in graph.notes and graph.notes[n].source == note.source
    ]
    candidates.sort(key=lambda r: (-scores[r.id], r.title, r.path))
    return tuple(sorted(candidates[:limit], key=lambda r: (r.title.lower(), r.path)))


def _entity_names(graph: _Graph, ids: list[str]) -> tuple[str, ...]:
    """The entities' names, in the given order, each once."""
    names = [graph.entities[e][1] for e in ids if e in graph.entities and graph.entities[e][1]]
    return tuple(dict.fromkeys(names))


def _entity_refs(graph: _Graph, ids: list[str]) -> tuple[str, ...]:
    return tuple(sorted(inline_ref(e, graph.entities[e][0]) for e in ids if e in graph.entities))


def read_insights(store: GraphStore, max_related: int = 8, max_mentions: int = 12) -> list[NoteInsight]:
    """One NoteInsight per existing note of the namespace, in path order."""
    with store.connect(read_only=True, wait_seconds=30) as conn:
        graph = _load(conn, store)
        sleep = _SleepFacts.read(conn)
    page_of = {e: note for note, entities in graph.pages.items() for e in sorted(entities)}
    mentioned_by: dict[str, set[str]] = defaultdict(set)
    for note_id, counter in graph.mentions.items():
        for entity in counter:
            mentioned_by[entity].add(note_id)
    insights = []
    for note in sorted(graph.notes.values(), key=lambda n: (n.source, n.path)):
        about = graph.pages.get(note.id, [])
        counted = [(e, c) for e, c in graph.mentions.get(note.id, Counter()).items() if e not in about]
        top = [e for e, _ in sorted(counted, key=lambda ec: (-ec[1], ec[0]))[:max_mentions]]
        related = _related(graph, note, page_of, mentioned_by, max_related)
        community, summary, salience = sleep.for_note(note.id, about, [e for e, _ in counted])
        insights.append(
            NoteInsight(
                note, _entity_refs(graph, about), _entity_names(graph, top), related, community, summary, salience
            )
        )
    return insights


@dataclass
class _SleepFacts:
    """Community membership, summaries and salience, when sleep mode has written them."""

    community: dict[str, tuple[int, str, str]]
    note_summary: dict[str, str]
    entity_summary: dict[str, str]
    note_salience: dict[str, float]
    entity_salience: dict[str, float]

    @classmethod
    def read(cls, conn: kuzu.Connection) -> "_SleepFacts":
        tables = {r[1]: r[2] for r in _rows(conn, "CALL show_tables() RETURN *")}
        columns = {
            t: {r[1] for r in _rows(conn, f"CALL table_info('{t}') RETURN *")} for t in tables if tables[t] == "NODE"
        }
        return cls(
            _communities(conn, tables, columns),
            _column(conn, "Note", "summary", columns), _column(conn, "Entity", "summary", columns),
            _column(conn, "Note", "salience", columns),
            _column(conn, "Entity", "salience", columns) or _salience_nodes(conn, columns),
        )

    def for_note(
        self, note_id: str, about: list[str], mentioned: list[str]
    ) -> tuple[str | None, str | None, float | None]:
        own = [self.community[e] for e in about if e in self.community]
        counts = Counter(self.community[e] for e in mentioned if e in self.community)
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        community = min(own) if own else (ranked[0][0] if ranked else None)
        summary = self.note_summary.get(note_id) or next(
            (self.entity_summary[e] for e in about if self.entity_summary.get(e)), None
        )
        if summary is None and community is not None and community[2]:
            summary = community[2]
        salience = self.note_salience.get(note_id)
        if salience is None:
            found = [self.entity_salience[e] for e in about if e in self.entity_salience]
            salience = max(found) if found else None
        return (
            community[1] if community and community[1] else None,
            _one_line(summary) if summary else None,
            round(float(salience), 3) if salience is not None else None,
        )


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _SUMMARY_CHARS else line[:_SUMMARY_CHARS - 1].rstrip() + "…"


def _column(conn: kuzu.Connection, table: str, column: str, columns: dict[str, set[str]]) -> dict[str, Any]:
    if column not in columns.get(table, set()):
        return {}
    return {r[0]: r[1] for r in _rows(conn, f"MATCH (n:{table}) WHERE n.{column} IS NOT NULL RETURN n.id, n.{column}")}


def _salience_nodes(conn: kuzu.Connection, columns: dict[str, set[str]]) -> dict[str, Any]:
    """entity id -> score from sleep mode's Salience nodes (mnemo/sleep/salience.py)."""
    if not {"item_id", "item_kind", "score"} <= columns.get("Salience", set()):
        return {}
    return {
        r[0]: r[1]
        for r in _rows(
            conn, "MATCH (s:Salience) WHERE s.item_kind = 'entity' AND s.score IS NOT NULL RETURN s.item_id, s.score"
        )
    }


def _communities(
    conn: kuzu.Connection, tables: dict[str, str], columns: dict[str, set[str]]
) -> dict[str, tuple[int, str, str]]:
    """entity id -> (level, title, summary) of its finest community."""
    have = columns.get("Community", set())
    if "title" not in have:
        return {}
    level = "c.level" if "level" in have else "0"
    summary = "c.summary" if "summary" in have else "''"
    found: dict[str, tuple[int, str, str]] = {}
    for table, kind in tables.items():
        if kind != "REL":
            continue
        ends = {(r[0], r[1]) for r in _rows(conn, f"CALL show_connection('{table}') RETURN *")}
        if ("Entity", "Community") not in ends:
            continue
        for entity, lvl, title, text in _rows(
            conn, f"MATCH (e:Entity)-[:{table}]->(c:Community) RETURN e.id, {level}, c.title, {summary}"
        ):
            candidate = (int(lvl or 0), title or "", text or "")
            if entity not in found or candidate < found[entity]:
                found[entity] = candidate
    return found
