"""The offline structural extractor: what notes already say, turned into graph facts.

Frontmatter types and tags make a note an entity; frontmatter wikilink properties become
typed relations (or `related_to` with the property name as role); body wikilinks become
LINKS_TO between notes and MENTIONS from the chunk; names and aliases of known entities
in free text become MENTIONS with their exact span (an alias two entities share is
resolved by the note's links and co-mentions, or kept as a marked candidate of each);
dates in text become MENTIONS_DAY edges to Day nodes; chat speakers become entities
(SAID_BY) and conversations Episodes (timeline.py), and "I"/"me" in the person's own
turns mention the self entity (speakers.py); journal pages, chat days and mentioned days
form one NEXT timeline.
"""

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from mnemo.documents import Chunk, Document, content_hash, entity_id, normalize_name
from mnemo.extract.dates import anchor_day, find_dates
from mnemo.extract.facts import GraphFacts, edge
from mnemo.extract.grounding import AliasHit, AliasMatcher
from mnemo.extract.speakers import add_self_mentions
from mnemo.extract.timeline import SpeakerMap, add_speakers, add_timeline, is_speaker_label
from mnemo.sources.markdown import as_strings, located_wikilinks, prose
from ontology import ANY, Ontology

EXTRACTOR = "structural"
# What may stand before the first word of a sentence: a line start or a sentence end, then
# list and heading marks, numbering, quotes and emphasis.
_OPENING = re.compile(r"(^|[.!?]\s)[\s>#*+\-_~^=\[(\"'“]*(\d+[.)]\s*)?[\s*_~^=\[(\"'“]*$")
_RESERVED = {"aliases", "alias", "tags", "tag", "title", "cssclasses", "cssclass", "publish", "mnemo"}


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
    return plain_properties(doc.properties, {link.property for link in doc.links if link.property}, ontology)


def plain_properties(properties: dict[str, Any], linked: set[str], ontology: Ontology) -> dict[str, Any]:
    """A note's properties that are an entity's own values: not its type, tags, aliases or
    relations (`linked`: the properties whose values are links)."""
    return {
        k: v for k, v in properties.items()
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
        speakers = self.speakers.knowing(facts)
        add_speakers(facts, docs, speakers)
        self._mentions(facts, docs, by_doc, index, entity_of)
        add_self_mentions(facts, docs, chunks, speakers)
        self._dates(facts, docs, by_doc)
        add_timeline(facts, docs, chunks, self.namespace, speakers)
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
        matcher = AliasMatcher(facts.nodes["Entity"].values())
        if not matcher.owners:
            return
        related = _neighbours(facts)
        entities = facts.nodes["Entity"]
        for doc in docs:
            linked = {entity_of.get(t.id) for link in doc.links if (t := index.find(link.target))}
            located = [_alias_hits(matcher, chunk) for chunk in by_doc[doc.id]]
            weak = {(c.id, h[0]) for c, text, hits in located for h in hits if _initial_word_alias(text, h, entities)}
            strong = {h[2][0] for c, _, hits in located for h in hits if len(h[2]) == 1 and (c.id, h[0]) not in weak}
            context = linked | {entity_of.get(doc.id)} | strong
            for chunk, text, hits in located:
                for start, end, eids in hits:
                    if (chunk.id, start) in weak and not context & set(eids):
                        continue
                    chosen, method = _resolve(eids, linked, context - set(eids), related)
                    for eid in chosen:
                        if eid == entity_of.get(doc.id):
                            continue
                        props = {"candidates": sorted(eids)} if len(chosen) > 1 else None
                        facts.add_edge("MENTIONS", "Chunk", "Entity", edge(
                            "MENTIONS", chunk.id, eid, doc.id, start=start, end=end,
                            surface=text[start:end], method=method, props=props,
                        ))

    def _dates(self, facts: GraphFacts, docs: list[Document], by_doc: dict[str, list[Chunk]]) -> None:
        """Days written in the text, relative to the document's (or chat turn's) own date."""
        for doc in docs:
            for chunk in by_doc[doc.id]:
                anchor = anchor_day(chunk.timestamp if doc.kind == "chat" else None, doc.day, doc.created)
                text = prose(chunk.text)
                taken = [(s, e) for _, s, e in located_wikilinks(text)]
                for found in find_dates(text, anchor, relative=doc.kind in ("journal", "chat")):
                    if any(s < found.end and found.start < e for s, e in taken):
                        continue
                    facts.add_node("Day", {"id": found.day})
                    facts.add_edge("MENTIONS_DAY", "Chunk", "Day", edge(
                        "MENTIONS_DAY", chunk.id, found.day, doc.id, start=found.start, end=found.end,
                        surface=text[found.start:found.end], method=found.method,
                    ))


def _neighbours(facts: GraphFacts) -> dict[str, set[str]]:
    """Entity id -> the entities it has a typed relation with (either direction)."""
    related: dict[str, set[str]] = defaultdict(set)
    for row in facts.relations():
        related[row["src"]].add(row["dst"])
        related[row["dst"]].add(row["src"])
    return related


def _alias_hits(matcher: AliasMatcher, chunk: Chunk) -> tuple[Chunk, str, list[AliasHit]]:
    """A chunk, its prose and the names in it, outside wikilinks and chat speaker labels."""
    text = prose(chunk.text)
    taken = [(s, e) for _, s, e in located_wikilinks(text)]
    hits = [
        h for h in matcher.hits(text)
        if not any(s < h[1] and h[0] < e for s, e in taken) and not is_speaker_label(chunk, text, h[0], h[1])
    ]
    return chunk, text, hits


def _initial_word_alias(text: str, hit: AliasHit, entities: dict[str, dict[str, Any]]) -> bool:
    """A one-word alias (not a name, not an acronym, not a person's) that opens a sentence,
    a line or a list item: its capital letter says nothing ("Select a folder", "Move
    cursor to the end" are not the `Select` and `Move` tools). Such a hit counts only when
    the note links to the entity or mentions it elsewhere.
    """
    start, end, eids = hit
    surface = text[start:end]
    if " " in surface.strip() or surface.isupper():
        return False
    if any(entities[e]["kind"] == "person" or normalize_name(entities[e]["name"]) == normalize_name(surface) for e in eids):
        return False
    return bool(_OPENING.search(text[text.rfind("\n", 0, start) + 1:start]))


def _resolve(
    eids: list[str], linked: set[str | None], context: set[str | None], related: dict[str, set[str]]
) -> tuple[list[str], str]:
    """Which of the entities sharing an alias the text means, and how that was decided.

    One owner: that one. Several: the one the note links to, else the one related to the
    other entities of the note (its links and unambiguous mentions); when that does not
    single one out, every candidate is kept and marked ambiguous, never a silent guess.
    """
    if len(eids) == 1:
        return eids, "alias"
    by_link = [e for e in eids if e in linked]
    if len(by_link) == 1:
        return by_link, "alias_linked"
    by_context = [e for e in eids if related.get(e, set()) & context]
    if len(by_context) == 1:
        return by_context, "alias_context"
    return eids, "alias_ambiguous"

