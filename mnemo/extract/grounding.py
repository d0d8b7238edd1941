"""Grounding: what memory already knows that an extractor should reuse for a chunk.

For each chunk the context holds the known entities whose names or aliases occur in its
text (an Aho-Corasick automaton over the alias table), the entities semantically close to
it (LanceDB entity vectors of the namespace, above a score threshold), and the namespace's
most salient entities; deduplicated in that order and capped.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import ahocorasick

from mnemo.config import GroundingConfig
from mnemo.documents import Chunk, normalize_name
from mnemo.facts import GraphFacts
from mnemo.sources.markdown import prose
from mnemo.stores.vector_table import VectorTable

_MIN_ALIAS = 3
AliasHit = tuple[int, int, list[str]]


@dataclass(frozen=True)
class GroundedEntity:
    """One known entity offered to an extractor, with why it was chosen."""

    id: str
    kind: str
    name: str
    aliases: tuple[str, ...]
    reason: str  # "alias" | "similar" | "salient"
    score: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "name": self.name, "aliases": list(self.aliases)}


class AliasMatcher:
    """Finds names and aliases of known entities in text, on word boundaries.

    A match counts when it is spelled exactly like a known name, or starts with a capital
    letter (names are proper nouns): 'jazz' in prose does not mention the note 'Jazz'
    unless written 'Jazz'. Overlapping matches keep the longest, leftmost one. Names in `skip`
    (lower case: ordinary words of the namespace, see `notes.common_words`) are not matched.
    """

    def __init__(self, entities: Iterable[dict[str, Any]], skip: frozenset[str] = frozenset()) -> None:
        self.owners: dict[str, tuple[list[str], set[str]]] = {}
        for row in sorted(entities, key=lambda r: r["id"]):
            for name in (row["name"], *(row.get("aliases") or [])):
                key = name.lower().strip()
                if len(normalize_name(key).replace(" ", "")) < _MIN_ALIAS or key.isdigit() or key in skip:
                    continue
                ids, spellings = self.owners.setdefault(key, ([], set()))
                if row["id"] not in ids:
                    ids.append(row["id"])
                spellings.add(name.strip())
        self.automaton = ahocorasick.Automaton()
        for key in self.owners:
            self.automaton.add_word(key, key)
        if self.owners:
            self.automaton.make_automaton()

    def hits(self, text: str) -> list[AliasHit]:
        """Longest non-overlapping (start, end, entity ids) matches."""
        lowered = text.lower()
        if not self.owners or len(lowered) != len(text):
            return []
        hits = []
        for end_index, key in self.automaton.iter(lowered):
            start, end = end_index - len(key) + 1, end_index + 1
            before = text[start - 1] if start > 0 else " "
            after = text[end] if end < len(text) else " "
            if before.isalnum() or before in "_/=%" or after.isalnum() or after in "_/%":
                continue  # inside a word, a path or a URL
            ids, spellings = self.owners[key]
            if text[start:end] not in spellings and not text[start].isupper():
                continue
            hits.append((start, end, ids))
        hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
        chosen: list[AliasHit] = []
        for hit in hits:
            if not chosen or hit[0] >= chosen[-1][1]:
                chosen.append(hit)
        return chosen


class EntityNeighbours(Protocol):
    """Semantic lookup of entities close to texts: per text, (entity id, similarity) pairs."""

    def search(self, texts: list[str], k: int) -> list[list[tuple[str, float]]]: ...


class LanceEntityNeighbours:
    """Cosine neighbours from a namespace's LanceDB `entities` table."""

    def __init__(self, table: VectorTable | None, embedder: Any) -> None:
        self.table = table
        self.embedder = embedder

    def search(self, texts: list[str], k: int) -> list[list[tuple[str, float]]]:
        if self.table is None or not texts or k <= 0:
            return [[] for _ in texts]
        vectors = self.embedder.encode(texts)
        found = []
        for vector in vectors:
            rows = self.table.neighbours(vector, k)
            found.append([(r["id"], 1.0 - float(r["_distance"])) for r in rows])
        return found


def salience(facts: GraphFacts) -> dict[str, float]:
    """A simple salience per entity: how often it is mentioned or related in the namespace."""
    scores: dict[str, float] = defaultdict(float)
    for (table, _, to_table), rows in facts.edges.items():
        for row in rows.values():
            if to_table == "Entity":
                scores[row["dst"]] += 1.0
            if table not in ("MENTIONS", "PAGE_OF", "ALIAS_OF") and row["src"] in facts.nodes["Entity"]:
                scores[row["src"]] += 1.0
    return dict(scores)


class Grounder:
    """Builds the grounding context of chunks from a namespace's known entities."""

    def __init__(
        self, entities: dict[str, dict[str, Any]], settings: GroundingConfig,
        scores: dict[str, float] | None = None, neighbours: EntityNeighbours | None = None,
    ) -> None:
        self.entities = entities
        self.settings = settings
        self.matcher = AliasMatcher(entities.values())
        ranked = sorted(entities, key=lambda e: (-(scores or {}).get(e, 0.0), e))
        self.salient = ranked[: settings.salient]
        self.neighbours = neighbours

    def _entity(self, eid: str, reason: str, score: float = 0.0) -> GroundedEntity:
        row = self.entities[eid]
        return GroundedEntity(eid, row["kind"], row["name"], tuple(row.get("aliases") or ()), reason, score)

    def contexts(self, chunks: list[Chunk]) -> dict[str, list[GroundedEntity]]:
        """The grounding context of each chunk (one neighbour search per batch of chunks)."""
        similar: list[list[tuple[str, float]]] = [[] for _ in chunks]
        if self.neighbours is not None and self.settings.neighbours:
            similar = self.neighbours.search([c.context_text for c in chunks], self.settings.neighbours)
        return {chunk.id: self._context(chunk, near) for chunk, near in zip(chunks, similar)}

    def _context(self, chunk: Chunk, similar: list[tuple[str, float]]) -> list[GroundedEntity]:
        chosen: dict[str, GroundedEntity] = {}
        for _, _, ids in self.matcher.hits(prose(chunk.context_text)):
            for eid in ids:
                chosen.setdefault(eid, self._entity(eid, "alias", 1.0))
        for eid, score in sorted(similar, key=lambda p: -p[1]):
            if score >= self.settings.min_similarity and eid in self.entities:
                chosen.setdefault(eid, self._entity(eid, "similar", score))
        for eid in self.salient:
            chosen.setdefault(eid, self._entity(eid, "salient"))
        return list(chosen.values())[: self.settings.max_entities]
