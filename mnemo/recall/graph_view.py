"""A read-only view of what recall's graph hydration reads, kept in the namespace's session.

Kùzu lets one process open a database at a time, so recall cannot keep it open, and opening
and closing it costs more than the rest of an eager recall. This view holds the little that
hydration needs — which entities each chunk mentions, which chunks mention each entity and
when, the entities' pages and their relations — loaded once from the database and loaded
again only when the database's files change (their size and modification time), so a warm
recall opens no database at all.

When the files changed but a writer holds the database, recall keeps answering from the
previous view (a consistent earlier state) without waiting; with no view yet it waits as
long as recall allows and raises StoreLocked as a direct read would. The view answers
exactly what `mnemo.recall.graph.hydrate_from_graph` answers from the database.
"""

import heapq
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, cast

from mnemo.errors import GraphIncomplete, StoreLocked
from mnemo.recall.graph import RELATION_LIMIT, Hydration
from mnemo.recall.visibility import hidden_entities, memory_only
from mnemo.sources.memory_files import MEMORY_SOURCE
from mnemo.stores.files import file_stamp
from mnemo.stores.graph import GraphStore
from mnemo.stores.graph_reader import GraphReader
from mnemo.stores.session import NamespaceSession

Stamp = tuple[tuple[Any, ...], ...]
LOCKED = "the graph is locked by another process: answered from vectors and full-text search only"
INCOMPLETE = (
    "the graph is incomplete (the write that created it was cut off; the next ingest completes it): "
    "answered from vectors and full-text search only"
)
GRAPH_VIEW = "graph view"  # its name in the namespace's session (with the database's path)


@dataclass(frozen=True)
class Relation:
    """One relation as seen from one of its ends."""

    label: str
    role: str | None
    other: str
    valid_from: str | None
    valid_to: str | None
    doc: str | None = None  # the document it was said in

    def holds_at(self, as_of: str) -> bool:
        return not as_of or (
            (not self.valid_from or self.valid_from <= as_of) and (not self.valid_to or self.valid_to > as_of)
        )


class GraphView:
    """Hydration's reads of one graph, in memory and ordered as the database orders them."""

    def __init__(
        self,
        by_time: list[tuple[str, str]],
        by_chunk: list[tuple[str, str, str]],
        relations: list[tuple[Any, ...]],
        entities: dict[str, tuple[str, str]],
        pages: list[tuple[str, str]],
        memory_only: dict[str, frozenset[str]] | None = None,
    ) -> None:
        """Rows as the module's queries return them, in their order; `memory_only`: the entities
        that come only from memories, with their documents (`recall.visibility`)."""
        self.entities = entities
        self.chunk_mentions: dict[str, list[tuple[str, str]]] = {}
        for chunk, entity, kind in by_chunk:
            self.chunk_mentions.setdefault(chunk, []).append((entity, kind))
        self.mentioned_by: dict[str, list[tuple[int, str, str]]] = {}  # the rank merges entities' lists
        for rank, (chunk, entity) in enumerate(by_time):
            self.mentioned_by.setdefault(entity, []).append((rank, entity, chunk))
        self.adjacent: dict[str, list[Relation]] = {}
        for src, label, role, valid_from, valid_to, dst, *doc in relations:
            self.adjacent.setdefault(src, []).append(Relation(label, role, dst, valid_from, valid_to, *doc))
        self.pages = dict(pages)  # the last page of an entity by id, as hydrate_from_graph keeps it
        self.memory_only = memory_only or {}

    @classmethod
    def read(cls, graph: GraphReader) -> "GraphView":
        """The view of the graph, read whole in the order hydration answers in (see mnemo.recall.graph)."""
        entities = {row[0]: (row[1], row[2]) for row in graph.entity_kinds_and_names()}
        by_time, by_chunk = graph.mentions_newest_first(), graph.mentions_by_chunk()
        relations = graph.relations_both_ways()
        pages = graph.pages_by_entity()
        memory_docs = {row[0] for row in graph.notes_of_source(MEMORY_SOURCE)}
        provenance = [*pages, *graph.entity_documents(), *((r[0], r[6]) for r in relations)]
        return cls(by_time, by_chunk, relations, entities, pages, memory_only(provenance, memory_docs))

    def hidden(self, ids: list[str], hidden_docs: frozenset[str]) -> set[str]:
        """The entities among `ids` that come only from the hidden documents."""
        return hidden_entities(self.memory_only, ids, hidden_docs)

    def hides(self, relation: Relation, hidden_docs: frozenset[str]) -> bool:
        """Whether the relation was said in a hidden document or leads to a hidden entity."""
        return relation.doc in hidden_docs or bool(self.hidden([relation.other], hidden_docs))

    def hydrate(
        self, entities: list[str], hits: list[str], hops: int, as_of: str | None, limit: int = RELATION_LIMIT,
        hidden_docs: frozenset[str] = frozenset(),
    ) -> Hydration:
        """What `hydrate_from_graph` would read from the database, from memory; without what
        comes only from `hidden_docs` (`recall.visibility`), the hidden entities asked for in `hidden`."""
        found = Hydration(hidden=self.hidden(entities, hidden_docs))
        entities = [e for e in entities if e not in found.hidden]
        for chunk in hits:
            if chunk in self.chunk_mentions:
                shown = [(e, k) for e, k in self.chunk_mentions[chunk] if not self.hidden([e], hidden_docs)]
                found.chunk_entities[chunk] = shown
        if not entities:
            return found
        frontier, seen = list(entities), set(entities)
        for _ in range(hops):
            rows = self._relations(frontier, as_of or "", limit, hidden_docs)
            found.relations.extend(rows)
            frontier = [r["dst"] for r in rows if r["dst"] not in seen]
            seen.update(frontier)
            found.related.extend(dict.fromkeys(frontier))
        wanted = [self.mentioned_by.get(e, []) for e in dict.fromkeys(list(entities) + found.related)]
        for _, entity, chunk in islice(heapq.merge(*wanted), limit):
            found.entity_chunks.setdefault(entity, []).append(chunk)
        found.page_docs = {e: self.pages[e] for e in dict.fromkeys(entities) if e in self.pages}
        return found

    def _relations(self, ids: list[str], as_of: str, limit: int, hidden_docs: frozenset[str]) -> list[dict[str, Any]]:
        rows = []
        for src in sorted(set(ids)):
            for r in self.adjacent.get(src, ()):
                if r.holds_at(as_of) and not (hidden_docs and self.hides(r, hidden_docs)):
                    kind, name = self.entities.get(r.other, (None, None))
                    rows.append(
                        {"src": src, "rel": r.label, "role": r.role, "dst": r.other, "kind": kind, "name": name}
                    )
                    if len(rows) >= limit:
                        return rows
        return rows


def stamp(path: Path) -> Stamp:
    """The database's files as they are now: a different stamp means the graph was written."""
    parts = (path, path.with_name(path.name + ".wal"))
    return tuple((part.name, *found) for part in parts if (found := file_stamp(part)) is not None)


def current_view(graph: GraphStore, wait_seconds: float, session: NamespaceSession) -> GraphView | None:
    """The view of the graph as its files are now (None when there is no graph yet), kept in the
    namespace's session.

    Reloads when the files changed; when a writer holds the database then, the previous
    view answers at once, and without one this waits up to `wait_seconds` and raises
    StoreLocked."""
    name = (GRAPH_VIEW, graph.path.resolve())
    now = stamp(name[1])
    if not now:
        session.drop(name)
        return None
    with session.lock:
        cached = session.entry(name)
        if cached is not None and cached[0] == now:
            return cast(GraphView, cached[1])
        try:
            with graph.reading(wait_seconds=0.0 if cached else wait_seconds) as reader:
                view = GraphView.read(reader)
        except StoreLocked:
            if cached is None:
                raise
            return cast(GraphView, cached[1])
        session.keep(name, now, view)
        return view


def hydrate(
    graph: GraphStore, session: NamespaceSession, entities: list[str], hits: list[str], hops: int,
    as_of: str | None, wait_seconds: float, hidden_docs: frozenset[str] = frozenset(),
) -> tuple[str | None, Hydration]:
    """Hydration from the current view, without what comes only from `hidden_docs`; when a writer
    holds a graph with no view yet: nothing (with hidden documents, every entity asked for counts
    as hidden: which are cannot be told), and the reason that recall reports as `degraded`."""
    if not (entities or hits):
        return None, Hydration()
    try:
        view = current_view(graph, wait_seconds, session)
    except StoreLocked as exc:
        unknown = Hydration(hidden=set(entities) if hidden_docs else set())
        return INCOMPLETE if isinstance(exc, GraphIncomplete) else LOCKED, unknown
    return None, view.hydrate(entities, hits, hops, as_of, hidden_docs=hidden_docs) if view else Hydration()


def visible_entities(graph: GraphStore, session: NamespaceSession, ids: list[str], hidden_docs: frozenset[str],
                     wait_seconds: float) -> list[str]:
    """The entities among `ids` that do not come only from `hidden_docs` (none when the graph cannot tell)."""
    if not (ids and hidden_docs):
        return ids
    try:
        view = current_view(graph, wait_seconds, session)
    except StoreLocked:
        return []
    hidden = view.hidden(ids, hidden_docs) if view else set()
    return [e for e in ids if e not in hidden]
