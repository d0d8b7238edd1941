"""The offline structural extractor: what notes already say, turned into graph facts.

Frontmatter types and tags make a note an entity; frontmatter wikilink properties become
typed relations (or `related_to` with the property name as role); body wikilinks become
LINKS_TO between notes and MENTIONS from the chunk; names and aliases of known entities
in free text become MENTIONS with their exact span; journal pages become Day nodes linked
in a NEXT timeline.
"""

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import ahocorasick

from mnemo.documents import Chunk, Document, content_hash, entity_id, normalize_name
from mnemo.extract.facts import GraphFacts, edge
from mnemo.extract.timeline import SpeakerMap, add_speakers, add_timeline, is_speaker_label
from mnemo.sources.markdown import as_strings, located_wikilinks, prose
from ontology import ANY, Ontology

EXTRACTOR = "structural"
_RESERVED = {"aliases", "alias", "tags", "tag", "title", "cssclasses", "cssclass", "publish", "mnemo"}
_MIN_ALIAS = 3


@dataclass
class _Target:
    """A resolved link target: a note (maybe a missing one) and the entity it stands for."""

    note_id: str
    entity: str | None


class NoteIndex:
    """Resolves wikilink targets the way Obsidian does: by file name, then by path."""

    def __init__(self, docs: list[Document]) -> None:
        self.by_key: dict[str, Document] = {}
        docs = [d for d in docs if d.kind != "chat"]  # conversations are not link targets
        for doc in sorted(docs, key=lambda d: (d.path.count("/"), d.path)):
            stem_key = doc.title.lower()
            path_key = doc.path.removesuffix(".md").lower()
            self.by_key.setdefault(stem_key, doc)
            self.by_key.setdefault(path_key, doc)
        self.by_alias: dict[str, Document] = {}
        for doc in sorted(docs, key=lambda d: d.path):
            for alias in doc.aliases:
                self.by_alias.setdefault(alias.lower(), doc)

    def find(self, target: str) -> Document | None:
        key = target.strip().removesuffix(".md").lower()
        return self.by_key.get(key) or self.by_key.get(key.rsplit("/", 1)[-1]) or self.by_alias.get(key)


def ghost_id(namespace: str, target: str) -> str:
    """The id of a note that is linked to but does not exist."""
    return "doc_" + content_hash(namespace, "missing-note", target.strip().lower())


def note_kind(doc: Document, ontology: Ontology) -> str | None:
    """The entity type a note declares through its type keys or its tags."""
    for key in ontology.type_keys:
        for value in as_strings(doc.properties.get(key)):
            kind = ontology.entity_type_for(value)
            if kind:
                return kind
    if ontology.type_tags:
        for tag in doc.tags:
            kind = ontology.entity_type_for(tag.split("/")[0])
            if kind:
                return kind
    return None


def _plain_properties(doc: Document, ontology: Ontology) -> dict[str, Any]:
    linked = {link.property for link in doc.links if link.property}
    return {
        k: v for k, v in doc.properties.items()
        if k.lower() not in _RESERVED and k not in linked and k.lower() not in ontology.type_keys
    }


class StructuralExtractor:
    """Builds GraphFacts for a whole namespace from its documents and chunks."""

    def __init__(self, ontology: Ontology, namespace: str, speakers: SpeakerMap | None = None) -> None:
        self.ontology = ontology
        self.namespace = namespace
        self.speakers = speakers or SpeakerMap()

    def extract(self, docs: list[Document], chunks: list[Chunk]) -> GraphFacts:
        facts = GraphFacts()
        index = NoteIndex(docs)
        kinds = self._entity_kinds(docs, index)
        entity_of = {doc_id: entity_id(kind, name) for doc_id, (kind, name) in kinds.items()}
        by_doc: dict[str, list[Chunk]] = defaultdict(list)
        for chunk in chunks:
            by_doc[chunk.doc_id].append(chunk)
        for doc in docs:
            self._note(facts, doc, by_doc[doc.id])
        for doc in docs:
            if doc.id in entity_of:
                self._entity(facts, doc, kinds[doc.id][0], entity_of[doc.id])
        for doc in docs:
            self._properties(facts, doc, index, kinds, entity_of)
            self._body_links(facts, doc, by_doc[doc.id], index, entity_of)
        add_speakers(facts, docs, self.speakers)
        self._mentions(facts, docs, by_doc, index, entity_of)
        add_timeline(facts, docs, chunks, self.namespace, self.speakers)
        return facts

    def _entity_kinds(self, docs: list[Document], index: NoteIndex) -> dict[str, tuple[str, str]]:
        """doc id -> (kind, name) for notes that are entities, declared or implied by a relation."""
        kinds = {d.id: (k, d.title) for d in docs if (k := note_kind(d, self.ontology))}
        for doc in sorted(docs, key=lambda d: d.path):
            for link in doc.links:
                rel = self.ontology.relation_for_key(link.property) if link.property else None
                if rel is None or ANY in rel.range or link.property.lower() in self.ontology.type_keys:
                    continue
                target = index.find(link.target)
                if target is not None and target.id not in kinds:
                    kinds[target.id] = (rel.range[0], target.title)
        return kinds

    def _note(self, facts: GraphFacts, doc: Document, chunks: list[Chunk]) -> None:
        facts.add_node("Note", {
            "id": doc.id, "path": doc.path, "title": doc.title, "kind": doc.kind, "source": doc.source,
            "tags": sorted(doc.tags), "properties": json.dumps(doc.properties, sort_keys=True, ensure_ascii=False),
            "day": doc.day or "", "created": doc.created or "", "content_hash": doc.content_hash, "present": True,
        })
        for chunk in chunks:
            facts.add_node("Chunk", {
                "id": chunk.id, "doc_id": doc.id, "position": chunk.position, "heading": chunk.heading,
                "text": chunk.text, "timestamp": chunk.timestamp or "",
            })
            facts.add_edge("HAS_CHUNK", "Note", "Chunk", edge("HAS_CHUNK", doc.id, chunk.id, doc.id))
            if chunk.next_id:
                facts.add_edge("NEXT", "Chunk", "Chunk", edge("NEXT", chunk.id, chunk.next_id, doc.id))

    def _entity(self, facts: GraphFacts, doc: Document, kind: str, eid: str) -> None:
        existing = facts.nodes["Entity"].get(eid)
        aliases = sorted(set(doc.aliases) | set(existing["aliases"] if existing else []))
        facts.add_node("Entity", {
            "id": eid, "kind": kind, "name": doc.title, "aliases": aliases,
            "properties": json.dumps(_plain_properties(doc, self.ontology), sort_keys=True, ensure_ascii=False),
            "doc_id": existing["doc_id"] if existing else doc.id, "origin": "note",
        })
        facts.add_edge("PAGE_OF", "Note", "Entity", edge("PAGE_OF", doc.id, eid, doc.id))
        for alias in doc.aliases:
            alias_id = "alias_" + content_hash(eid, alias)
            facts.add_node("Alias", {"id": alias_id, "name": alias, "norm": normalize_name(alias), "entity_id": eid, "doc_id": doc.id})
            facts.add_edge("ALIAS_OF", "Alias", "Entity", edge("ALIAS_OF", alias_id, eid, doc.id))

    def _target(self, facts: GraphFacts, link_target: str, index: NoteIndex, entity_of: dict[str, str]) -> _Target:
        doc = index.find(link_target)
        if doc is not None:
            return _Target(doc.id, entity_of.get(doc.id))
        note_id = ghost_id(self.namespace, link_target)
        if note_id not in facts.nodes["Note"]:
            facts.add_node("Note", {
                "id": note_id, "path": "", "title": link_target.strip(), "kind": "note", "source": "",
                "tags": [], "properties": "{}", "day": "", "created": "", "content_hash": "", "present": False,
            })
        return _Target(note_id, None)

    def _properties(
        self, facts: GraphFacts, doc: Document, index: NoteIndex,
        kinds: dict[str, tuple[str, str]], entity_of: dict[str, str],
    ) -> None:
        source = entity_of.get(doc.id)
        for link in doc.links:
            if not link.property or link.property.lower() in self.ontology.type_keys:
                continue
            target = self._target(facts, link.target, index, entity_of)
            facts.add_edge("LINKS_TO", "Note", "Note", edge("LINKS_TO", doc.id, target.note_id, doc.id, role=link.property))
            rel = self.ontology.relation_for_key(link.property)
            if target.entity is None and source is not None and rel is not None and ANY not in rel.range:
                target.entity = self._implied_entity(facts, link.target, rel.range[0])
            if source is None or target.entity is None or target.entity == source:
                continue
            source_kind = kinds[doc.id][0]
            target_kind = facts.nodes["Entity"][target.entity]["kind"]
            relation, role = (rel.name, "") if rel else ("related_to", link.property)
            if self.ontology.check(relation, source_kind, target_kind):
                relation, role = "related_to", link.property
            facts.add_edge(relation.upper(), "Entity", "Entity", edge(
                relation.upper(), source, target.entity, doc.id, role=role, method=f"property:{link.property}",
                observed_at=doc.modified or "",
            ))

    def _implied_entity(self, facts: GraphFacts, name: str, kind: str) -> str:
        """An entity named by a relation property whose note does not exist yet."""
        eid = entity_id(kind, name)
        if eid not in facts.nodes["Entity"]:
            facts.add_node("Entity", {
                "id": eid, "kind": kind, "name": name.strip(), "aliases": [], "properties": "{}",
                "doc_id": "", "origin": "link",
            })
        return eid

    def _body_links(
        self, facts: GraphFacts, doc: Document, chunks: list[Chunk], index: NoteIndex, entity_of: dict[str, str]
    ) -> None:
        for chunk in chunks:
            text = prose(chunk.text)
            for link, start, end in located_wikilinks(text):
                target = self._target(facts, link.target, index, entity_of)
                if target.note_id != doc.id:
                    facts.add_edge("LINKS_TO", "Note", "Note", edge(
                        "LINKS_TO", doc.id, target.note_id, doc.id, method="embed" if link.embed else "wikilink",
                    ))
                if target.entity and target.entity != entity_of.get(doc.id):
                    facts.add_edge("MENTIONS", "Chunk", "Entity", edge(
                        "MENTIONS", chunk.id, target.entity, doc.id, start=start, end=end,
                        surface=text[start:end], method="wikilink",
                    ))

    def _mentions(
        self, facts: GraphFacts, docs: list[Document], by_doc: dict[str, list[Chunk]],
        index: NoteIndex, entity_of: dict[str, str],
    ) -> None:
        automaton, owners = _alias_automaton(facts.nodes["Entity"].values())
        if not owners:
            return
        for doc in docs:
            linked = {entity_of.get(t.id) for link in doc.links if (t := index.find(link.target))}
            for chunk in by_doc[doc.id]:
                text = prose(chunk.text)
                taken = [(s, e) for _, s, e in located_wikilinks(text)]
                for start, end, eids in _alias_hits(automaton, owners, text):
                    if any(s < end and start < e for s, e in taken) or is_speaker_label(chunk, text, start, end):
                        continue
                    chosen = [e for e in eids if e in linked] if len(eids) > 1 else eids
                    method = "alias" if len(chosen) == 1 else "alias_ambiguous"
                    for eid in chosen or eids:
                        if eid != entity_of.get(doc.id):
                            facts.add_edge("MENTIONS", "Chunk", "Entity", edge(
                                "MENTIONS", chunk.id, eid, doc.id, start=start, end=end,
                                surface=text[start:end], method=method,
                            ))


def _alias_automaton(entities: Any) -> tuple[Any, dict[str, tuple[list[str], set[str]]]]:
    """An Aho-Corasick automaton over lower-cased names and aliases -> (entity ids, spellings)."""
    owners: dict[str, tuple[list[str], set[str]]] = {}
    for row in sorted(entities, key=lambda r: r["id"]):
        for name in (row["name"], *row["aliases"]):
            key = name.lower().strip()
            if len(normalize_name(key).replace(" ", "")) < _MIN_ALIAS or key.isdigit():
                continue
            ids, spellings = owners.setdefault(key, ([], set()))
            if row["id"] not in ids:
                ids.append(row["id"])
            spellings.add(name.strip())
    automaton = ahocorasick.Automaton()
    for key in owners:
        automaton.add_word(key, key)
    if owners:
        automaton.make_automaton()
    return automaton, owners


def _alias_hits(automaton: Any, owners: dict[str, tuple[list[str], set[str]]], text: str) -> list[tuple[int, int, list[str]]]:
    """Longest non-overlapping name matches on word boundaries.

    A match counts when it is spelled exactly like a known name, or starts with a capital
    letter (names are proper nouns): 'jazz' in prose does not mention the note 'Jazz'
    unless written 'Jazz'.
    """
    lowered = text.lower()
    if len(lowered) != len(text):
        return []
    hits = []
    for end_index, key in automaton.iter(lowered):
        start, end = end_index - len(key) + 1, end_index + 1
        before = text[start - 1] if start > 0 else " "
        after = text[end] if end < len(text) else " "
        if before.isalnum() or before == "_" or after.isalnum() or after == "_":
            continue
        ids, spellings = owners[key]
        if text[start:end] not in spellings and not text[start].isupper():
            continue
        hits.append((start, end, ids))
    hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
    chosen: list[tuple[int, int, list[str]]] = []
    for hit in hits:
        if not chosen or hit[0] >= chosen[-1][1]:
            chosen.append(hit)
    return chosen
