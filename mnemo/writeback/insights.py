"""What mnemo knows about each note, read from the namespace's graph.

For every note that exists: the entities it is about (its PAGE_OF entities), the entities
its passages mention, the notes related to it that it does not link yet (related.py),
the journal days and chats that mention its subject (mentioned.py), a one-line summary of what
the graph states about its subject, and — when sleep mode has put them in the graph — its
community and a salience score. Whatever the graph does not hold is left out.
"""

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from mnemo.sleep.view import COHESION_FLOOR
from mnemo.stores.graph import GraphStore
from mnemo.stores.graph_reader import GraphReader
from mnemo.writeback.language import looks_english
from mnemo.writeback.mentioned import Mentioned, Mentions, Place
from mnemo.writeback.named import named_notes
from mnemo.writeback.note_vectors import NoteVectors
from mnemo.writeback.related import MIN_EVIDENCE, Neighbourhood, hub_notes, index_pages, related_notes, verb

_SUMMARY_CHARS = 240
_SUMMARY_FACTS = 3
_GENERIC = {"REFERS_TO", "RELATED_TO"}  # a plain link, not a fact worth a summary


@dataclass(frozen=True)
class NoteRef:
    id: str
    source: str
    path: str
    title: str
    properties: dict[str, Any]
    kind: str = "note"


@dataclass(frozen=True)
class NoteInsight:
    note: NoteRef
    about: tuple[str, ...]
    mentions: tuple[str, ...]
    related: tuple[NoteRef, ...]
    community: str | None = None
    summary: str | None = None
    salience: float | None = None
    related_evidence: tuple[float, ...] = ()
    mentioned: Mentioned = Mentioned((), 0, None)
    community_id: str | None = None
    takes_related: bool = True  # False for a hub or an index page (related.py)


def inline_ref(entity_id: str, kind: str) -> str:
    """`person_alice_chen` of kind person -> `person_id:alice_chen` (the grounding form)."""
    prefix = kind + "_"
    return f"{kind}_id:{entity_id[len(prefix):]}" if entity_id.startswith(prefix) else entity_id




@dataclass
class _Graph:
    notes: dict[str, NoteRef]
    days: dict[str, str]
    entities: dict[str, tuple[str, str, str]]
    pages: dict[str, list[str]]
    mentions: dict[str, Counter[str]]
    links: dict[str, set[str]]
    out_links: dict[str, set[str]]
    relations: dict[str, list[tuple[str, str, str]]]
    chats: list[tuple[str, str, str]]  # (entity, chat title, day)
    stated: list[tuple[str, str, str]]  # (note, entity, entity) of each relation
    texts: dict[str, str]  # note id -> its passages' text


def _load(graph: GraphReader, store: GraphStore) -> _Graph:
    rows = graph.notes_with_paths()
    notes = {r[0]: NoteRef(r[0], r[1], r[2], r[3], json.loads(r[4] or "{}"), r[5] or "note") for r in rows}
    days = {r[0]: r[6] for r in rows if r[5] == "journal" and r[6]}
    entities = {
        r[0]: (r[1], r[2], r[3] or "")
        for r in graph.entities_with_docs()
    }
    pages: dict[str, list[str]] = defaultdict(list)
    for note, entity in graph.pages_of_entities():
        pages[note].append(entity)
    mentions: dict[str, Counter[str]] = defaultdict(Counter)
    for note, entity, count in graph.note_mention_counts():
        mentions[note][entity] += count
    links: dict[str, set[str]] = defaultdict(set)
    out_links: dict[str, set[str]] = defaultdict(set)
    for a, b in graph.note_links():
        if a != b:
            out_links[a].add(b)
            links[a].add(b)
            links[b].add(a)
    relations, stated = _relations(graph, store)
    texts: dict[str, list[str]] = defaultdict(list)
    for note, text in graph.note_passages():
        texts[note].append(text or "")
    return _Graph(notes, days, entities, pages, mentions, links, out_links, relations, _chats(graph), stated,
                  {note: "\n".join(parts) for note, parts in texts.items()})


def _relations(
    graph: GraphReader, store: GraphStore,
) -> tuple[dict[str, list[tuple[str, str, str]]], list[tuple[str, str, str]]]:
    """entity -> the typed relations it takes part in, as (from, table, to); and each relation's
    (note it was read from, from, to): a link of that note, when the note is the page of one end."""
    found: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    stated: list[tuple[str, str, str]] = []
    for table, pairs in sorted(store.edge_tables.items()):
        if ("Entity", "Entity") in pairs:
            for a, b, doc in graph.entity_relation_ends(table):
                if a != b:
                    found[a].append((a, table, b))
                    found[b].append((a, table, b))
                    stated.append((doc or "", a, b))
    return found, stated


def _chats(graph: GraphReader) -> list[tuple[str, str, str]]:
    return [(e, title or "a chat", (start or "")[:10]) for e, title, start in graph.chat_mentions() if start]


def _neighbourhood(graph: _Graph, titles_named: bool = True, meanings: NoteVectors | None = None) -> Neighbourhood:
    names = {i: n.title for i, n in graph.notes.items()}
    names.update({e: v[1] for e, v in graph.entities.items() if v[1]})
    space = Neighbourhood(names, graph.links, relations=graph.relations, meanings=meanings)
    space.page_of = {e: note for note, entities in graph.pages.items() for e in sorted(entities) if note in graph.notes}
    for doc, a, b in graph.stated:  # a relation read from a note's link: the two notes are linked
        for end in (a, b):
            other = space.page_of.get(end)
            if doc in graph.notes and other is not None and other != doc:
                graph.links[doc].add(other)
                graph.links[other].add(doc)
    for note in graph.notes:
        own = set(graph.pages.get(note, ()))
        space.neighbours[note] = graph.links.get(note, set()) | (set(graph.mentions.get(note, ())) - own)
        space.subjects[note] = sorted(own)
    space.hubs = hub_notes(graph.links, set(graph.notes))
    space.index_pages = index_pages(graph.texts)
    if titles_named:
        said = {i: f"{graph.texts.get(i, '')}\n{_property_words(n.properties)}" for i, n in graph.notes.items()}
        space.named = named_notes(said, {i: n.title for i, n in graph.notes.items() if n.kind != "journal"})
        for note, others in space.named.items():
            for other in others:
                space.named_by.setdefault(other, set()).add(note)
    return space


def _property_words(properties: dict[str, Any]) -> str:
    """The words of a note's own property values (`categories: Books`), mnemo's own left out."""
    values = [v for k, v in properties.items() if not str(k).startswith("mnemo")]
    return " ".join(str(i) for v in values for i in (v if isinstance(v, list) else [v]))


def _mentions(graph: _Graph) -> Mentions:
    found = Mentions.empty()
    for note, day in graph.days.items():
        place = Place(day, graph.notes[note].title, note)
        for entity in graph.mentions.get(note, ()):
            found.add_entity(entity, place)
        for target in graph.out_links.get(note, ()):
            found.add_note(target, place)
    for entity, title, day in graph.chats:
        found.add_entity(entity, Place(day, title))
    return found


def _summary(graph: _Graph, about: list[str], text: str, english: bool) -> str | None:
    """A one-line summary of an entity note: what the graph states about its subject, in the relations'
    English names, so only for a note written in English (`english`: the vault, for a short note)."""
    if not about or not looks_english(text, english):
        return None
    facts = []
    for entity in about:
        for a, table, b in graph.relations.get(entity, ()):
            if table not in _GENERIC and a in graph.entities and b in graph.entities:
                facts.append(f"{graph.entities[a][1]} {verb(table)} {graph.entities[b][1]}")
    facts = list(dict.fromkeys(facts))
    return _one_line("; ".join(facts[:_SUMMARY_FACTS]) + ".") if facts else None


def _entity_names(graph: _Graph, ids: list[str]) -> tuple[str, ...]:
    """The entities' names, in the given order, each once."""
    names = [graph.entities[e][1] for e in ids if e in graph.entities and graph.entities[e][1]]
    return tuple(dict.fromkeys(names))


def _entity_refs(graph: _Graph, ids: list[str]) -> tuple[str, ...]:
    return tuple(sorted(inline_ref(e, graph.entities[e][0]) for e in ids if e in graph.entities))


def read_insights(
    store: GraphStore, max_related: int = 8, max_mentions: int = 12, max_mentioned_in: int = 10,
    min_evidence: float = MIN_EVIDENCE, titles_named: bool = True, meanings: NoteVectors | None = None,
) -> list[NoteInsight]:
    """One NoteInsight per existing note of the namespace, in path order. `titles_named`: whether a
    note naming another's title counts as evidence that they are related (an evaluation turns it off);
    `meanings`: the notes' mean passage embeddings (closeness in meaning counts as evidence too)."""
    with store.reading(wait_seconds=30) as reader:
        graph = _load(reader, store)
        sleep = _SleepFacts.read(reader)
    space = _neighbourhood(graph, titles_named, meanings)
    sharing = space.by_neighbour()
    mentioned = _mentions(graph)
    by_source: dict[str, set[str]] = defaultdict(set)
    for note in graph.notes.values():
        if note.kind != "journal":
            by_source[note.source].add(note.id)
    insights = []
    english = looks_english(" ".join(graph.texts.values()))  # for a note too short to tell
    for note in sorted(graph.notes.values(), key=lambda n: (n.source, n.path)):
        about = graph.pages.get(note.id, [])
        counted = [(e, c) for e, c in graph.mentions.get(note.id, Counter()).items() if e not in about]
        top = [e for e, _ in sorted(counted, key=lambda ec: (-ec[1], ec[0]))[:max_mentions]]
        related = related_notes(space, note.id, by_source[note.source], sharing, max_related, min_evidence)
        community, summary, salience = sleep.for_note(note.id, about, [e for e, _ in counted])
        insights.append(NoteInsight(
            note, _entity_refs(graph, about), _entity_names(graph, top),
            tuple(graph.notes[r.note_id] for r in related), community[1] if community else None,
            summary or _summary(graph, about, graph.texts.get(note.id, ''), english), salience,
            tuple(r.evidence for r in related), mentioned.of(note.id, about, max_mentioned_in),
            community[0] if community else None, note.id not in space.hubs | space.index_pages,
        ))
    return insights


@dataclass
class _SleepFacts:
    """Community membership, summaries and salience, when sleep mode has written them."""

    community: dict[str, tuple[int, str, str, str]]
    note_summary: dict[str, str]
    entity_summary: dict[str, str]
    note_salience: dict[str, float]
    entity_salience: dict[str, float]

    @classmethod
    def read(cls, graph: GraphReader) -> "_SleepFacts":
        tables = graph.table_kinds()
        columns = {t: graph.columns_of(t) for t in tables if tables[t] == "NODE"}
        return cls(
            _communities(graph, tables, columns),
            _column(graph, "Note", "summary", columns), _column(graph, "Entity", "summary", columns),
            _column(graph, "Note", "salience", columns),
            _column(graph, "Entity", "salience", columns) or _salience_nodes(graph, columns),
        )

    def for_note(
        self, note_id: str, about: list[str], mentioned: list[str]
    ) -> tuple[tuple[str, str] | None, str | None, float | None]:
        """((community id, title) or None, the note's own summary or None, salience or None)."""
        own = [self.community[e] for e in about if e in self.community]
        counts = Counter(self.community[e] for e in mentioned if e in self.community)
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        community = min(own) if own else (ranked[0][0] if ranked else None)
        summary = self.note_summary.get(note_id) or next(
            (self.entity_summary[e] for e in about if self.entity_summary.get(e)), None
        )
        salience = self.note_salience.get(note_id)
        if salience is None:
            found = [self.entity_salience[e] for e in about if e in self.entity_salience]
            salience = max(found) if found else None
        return (
            (community[3], community[1]) if community and community[1] else None,
            _one_line(summary) if summary else None,
            round(float(salience), 3) if salience is not None else None,
        )


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _SUMMARY_CHARS else line[:_SUMMARY_CHARS - 1].rstrip() + "…"


def _column(graph: GraphReader, table: str, column: str, columns: dict[str, set[str]]) -> dict[str, Any]:
    if column not in columns.get(table, set()):
        return {}
    return {r[0]: r[1] for r in graph.values_of(table, column)}


def _salience_nodes(graph: GraphReader, columns: dict[str, set[str]]) -> dict[str, Any]:
    """entity id -> score from sleep mode's Salience nodes (mnemo/sleep/salience.py)."""
    if not {"item_id", "item_kind", "score"} <= columns.get("Salience", set()):
        return {}
    return {r[0]: r[1] for r in graph.entity_salience()}


def _communities(
    graph: GraphReader, tables: dict[str, str], columns: dict[str, set[str]]
) -> dict[str, tuple[int, str, str, str]]:
    """entity id -> (level, title, summary, id) of its finest community."""
    have = columns.get("Community", set())
    if "title" not in have:
        return {}
    found: dict[str, tuple[int, str, str, str]] = {}
    for table, kind in tables.items():
        if kind != "REL":
            continue
        if ("Entity", "Community") not in graph.connections_of(table):
            continue
        for entity, lvl, title, text, cid in graph.finest_communities(table, have, COHESION_FLOOR):
            candidate = (int(lvl or 0), title or "", text or "", cid)
            if entity not in found or candidate < found[entity]:
                found[entity] = candidate
    return found
