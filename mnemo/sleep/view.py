"""Read-only indexes over canonical facts that the sleep steps share."""

import json
from collections import defaultdict
from collections.abc import Mapping
from itertools import combinations
from typing import TYPE_CHECKING, Any

from mnemo.documents import content_hash
from mnemo.facts import GraphFacts, edge_columns
from mnemo.note_names import own_name

if TYPE_CHECKING:
    import igraph as ig  # imported when a graph is built: a re-run that reuses Leiden and PageRank never loads it


# A community whose name-giver reaches fewer than this share of its members within two links is
# kept in the graph but not written into notes or pages (its name would not say what it holds).
COHESION_FLOOR = 0.5
HUB_SHARE = 0.05  # an entity with neighbours among more than this share of all entities is a hub
HUB_MIN = 12
CO_MENTION_LIMIT = 4  # a passage mentioning more entities than this plus one ties each pair less
LINK_WEIGHT = 0.25  # the least weight that counts as a link when cohesion counts links
WEIGHTING = "hubs weighed down"  # in the graph digest: a partition made with other weights is not reused


def _weight(row: dict[str, Any]) -> int:
    """How many links a REFERS_TO row stands for: the relation counts that many times."""
    return max(1, int(json.loads(row["props"] or "{}").get("weight", 1)))


def _weighted_graph(vertices: int, weights: dict[tuple[int, int], float]) -> "ig.Graph":
    """An undirected igraph with the given edge weights, edges in sorted order."""
    import igraph as ig

    edges = sorted(weights)
    graph = ig.Graph(n=vertices, edges=edges)
    graph.es["weight"] = [weights[e] for e in edges]
    return graph


class FactsView:
    """Entities, their relations, mentions, pages and chunks, indexed for the sleep steps."""

    def __init__(self, facts: GraphFacts) -> None:
        self.facts = facts
        self._graph: tuple[ig.Graph, list[str]] | None = None
        self._weights: tuple[list[str], dict[tuple[int, int], float]] | None = None
        self._digest: str | None = None
        self._relation_degree: dict[str, int] | None = None
        self._community: tuple[ig.Graph, list[str]] | None = None
        self._adjacency: dict[str, dict[str, float]] | None = None
        self._shown: dict[str, str] = {}
        self.entities: dict[str, dict[str, Any]] = facts.nodes["Entity"]
        self.chunks: dict[str, dict[str, Any]] = facts.nodes["Chunk"]
        self.notes: dict[str, dict[str, Any]] = facts.nodes["Note"]
        self.relations: list[tuple[str, str]] = []
        self.mentions: dict[str, set[str]] = defaultdict(set)
        self.chunk_entities: dict[str, set[str]] = defaultdict(set)
        self.note_chunks: dict[str, list[str]] = defaultdict(list)
        self.pages: dict[str, set[str]] = defaultdict(set)
        for (table, src, dst), rows in facts.edges.items():
            self._index(table, src, dst, rows)
        for chunk_ids in self.note_chunks.values():
            chunk_ids.sort(key=lambda c: self.chunks[c]["position"] if c in self.chunks else 0)

    def _index(self, table: str, src: str, dst: str, rows: Mapping[str, dict[str, Any]]) -> None:
        entities, chunks = self.entities, self.chunks
        if src == dst == "Entity":
            self.relations.extend(
                (r["src"], r["dst"]) for r in rows.values() if r["src"] in entities and r["dst"] in entities
                for _ in range(_weight(r) if table == "REFERS_TO" else 1)
            )
        elif table == "MENTIONS":
            mentions, chunk_entities = self.mentions, self.chunk_entities
            for chunk, entity in zip(*edge_columns(rows, "src", "dst")):
                if chunk in chunks:
                    mentions[entity].add(chunk)
                    chunk_entities[chunk].add(entity)
        elif table == "HAS_CHUNK":
            note_chunks = self.note_chunks
            for note, chunk in zip(*edge_columns(rows, "src", "dst")):
                note_chunks[note].append(chunk)
        elif table == "PAGE_OF":
            pages = self.pages
            for note, entity in zip(*edge_columns(rows, "src", "dst")):
                pages[entity].add(note)

    def shown_name(self, eid: str) -> str:
        """What the owner calls the entity: when it is named by its note's file name and that name
        is an identifier, the name the note gives itself (`note_names`); else its name."""
        if eid not in self._shown:
            name = self.entities[eid]["name"]
            notes = sorted(self.pages.get(eid, ()))
            note = self.notes.get(notes[0]) if notes else None
            named = note is not None and note.get("title") == name
            own = own_name(name, json.loads(note.get("properties") or "{}")) if named and note else None
            self._shown[eid] = own or name
        return self._shown[eid]

    def entity_chunks(self, eid: str) -> list[str]:
        """Chunks that mention the entity, then the chunks of its own page(s)."""
        own = [c for note in sorted(self.pages.get(eid, ())) for c in self.note_chunks.get(note, [])]
        return sorted(self.mentions.get(eid, set())) + own

    def entity_graph(self) -> "tuple[ig.Graph, list[str]]":
        """An undirected weighted graph of entities: relations weigh 1, co-mentions in a chunk 0.5
        (built once per view)."""
        if self._graph is None:
            ids, weights = self._entity_weights()
            self._graph = _weighted_graph(len(ids), weights), ids
        return self._graph

    def graph_digest(self) -> str:
        """A digest of what the entity graph is made of: its vertices, its relations and the sets of
        entities each chunk mentions together (the weights follow from them). Equal digests, equal
        graph; computed once per view, without building the graph or its weights."""
        if self._digest is None:
            entities = self.entities
            ids = entities.keys()
            relations = sorted(f"{a}\x1f{b}" if a < b else f"{b}\x1f{a}" for a, b in self.relations if a != b)
            together = sorted("\x1f".join(sorted(found)) for members in self.chunk_entities.values()
                              if len(members) > 1 and len(found := members & ids) > 1)
            self._digest = content_hash(WEIGHTING, *sorted(entities), "\x1e".join(relations), "\x1e".join(together))
        return self._digest

    def _entity_weights(self) -> tuple[list[str], dict[tuple[int, int], float]]:
        if self._weights is not None:
            return self._weights
        ids = sorted(self.entities)
        index = {eid: i for i, eid in enumerate(ids)}
        weights: dict[tuple[int, int], float] = defaultdict(float)
        for a, b in self.relations:
            if a != b:
                low, high = sorted((index[a], index[b]))
                weights[(low, high)] += 1.0
        for members in self.chunk_entities.values():
            for pair in combinations(sorted(index[m] for m in members if m in index), 2):
                weights[pair] += 0.5
        self._weights = ids, dict(weights)
        return self._weights

    def community_weights(self) -> tuple[list[str], dict[tuple[int, int], float]]:
        """The entity graph's weights with hubs weighed down, for community detection. An entity with
        more neighbours than the hub limit (a share of all entities, at least `HUB_MIN`) -- an index
        note, a tag page, 'Books' or 'People' -- says little about what its neighbours share, so each
        of its edges keeps limit / neighbours of its weight; and a passage that mentions many entities
        (a list of links) ties each pair of them by `CO_MENTION_LIMIT` / (entities - 1) of 0.5."""
        ids, weights = self._entity_weights()
        index = {eid: i for i, eid in enumerate(ids)}
        listed: dict[tuple[int, int], float] = defaultdict(float)
        for members in self.chunk_entities.values():
            found = sorted(index[m] for m in members if m in index)
            if len(found) - 1 > CO_MENTION_LIMIT:
                for pair in combinations(found, 2):
                    listed[pair] += 0.5 * (1 - CO_MENTION_LIMIT / (len(found) - 1))
        count = [0] * len(ids)
        for a, b in weights:
            count[a] += 1
            count[b] += 1
        limit = max(HUB_MIN, HUB_SHARE * len(ids))
        damp = [min(1.0, limit / c) if c else 1.0 for c in count]
        kept = {(a, b): (w - listed.get((a, b), 0.0)) * damp[a] * damp[b] for (a, b), w in weights.items()}
        return ids, {pair: w for pair, w in kept.items() if w > 1e-9}

    def community_graph(self) -> "tuple[ig.Graph, list[str]]":
        """`community_weights` as an undirected weighted igraph (built once per view)."""
        if self._community is None:
            ids, weights = self.community_weights()
            self._community = _weighted_graph(len(ids), weights), ids
        return self._community

    def adjacency(self) -> dict[str, dict[str, float]]:
        """entity id -> {neighbour id: weight in `community_weights`}, for the edges that weigh at least
        `LINK_WEIGHT` (built once per view)."""
        if self._adjacency is None:
            ids, weights = self.community_weights()
            adjacency: dict[str, dict[str, float]] = defaultdict(dict)
            for (a, b), w in weights.items():
                if w < LINK_WEIGHT:
                    continue
                adjacency[ids[a]][ids[b]] = w
                adjacency[ids[b]][ids[a]] = w
            self._adjacency = adjacency
        return self._adjacency

    def degree(self, eid: str) -> int:
        if self._relation_degree is None:
            self._relation_degree = defaultdict(int)
            for a, b in self.relations:
                self._relation_degree[a] += 1
                self._relation_degree[b] += a != b
        return len(self.mentions.get(eid, ())) + self._relation_degree.get(eid, 0)
