"""The offline structural extractor: what notes already say, turned into graph facts.

Every note is an entity, typed by what it declares, its folder or the ontology's default
(notes.py); frontmatter wikilink properties become typed relations (or `related_to` with
the property name as role); every link becomes a weighted REFERS_TO between the entities,
and body wikilinks LINKS_TO between notes and MENTIONS from the chunk; link display texts
are weak aliases of their targets; names and aliases of known entities
in free text become MENTIONS with their exact span (an alias two entities share is
resolved by the note's links and co-mentions, or kept as a marked candidate of each);
dates in text become MENTIONS_DAY edges to Day nodes; chat speakers become entities
(SAID_BY) and conversations Episodes (timeline.py), and "I"/"me" in the person's own
turns mention the self entity (speakers.py); journal pages, chat days and mentioned days
form one NEXT timeline.
"""

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import chain
from typing import Any, TypeVar

from mnemo.documents import Chunk, Document, content_hash, entity_id, normalize_name
from mnemo.extract.dates import anchor_day, find_dates
from mnemo.extract.fragments import Fragment, FragmentCache, absorb
from mnemo.extract.grounding import AliasMatcher
from mnemo.extract.mentions import doc_mentions, neighbours
from mnemo.extract.notes import (
    LINK_TEXT,
    NoteIndex,
    Resolver,
    common_words,
    entity_ids,
    entity_kinds,
    ghost_id,
    link_targets,
    link_text_alias_id,
    link_texts,
    link_weights,
)
from mnemo.extract.speakers import add_self_mentions
from mnemo.extract.timeline import SpeakerMap, add_days, add_episodes, add_speakers
from mnemo.facts import GraphFacts, edge
from mnemo.runtime import collections_paused
from mnemo.sources.markdown import located_wikilinks, prose
from ontology import ANY, Ontology

EXTRACTOR = "structural"
F = TypeVar("F", GraphFacts, Fragment)
_RESERVED = {"aliases", "alias", "tags", "tag", "title", "cssclasses", "cssclass", "publish", "mnemo"}


@dataclass
class _Target:
    """A resolved link target: a note (maybe a missing one) and the entity it stands for."""

    note_id: str
    entity: str | None


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

    def extract(self, docs: list[Document], chunks: list[Chunk], cache: FragmentCache | None = None) -> GraphFacts:
        """The namespace's facts; with a `cache`, the pieces of unchanged documents whose
        context is unchanged are reused (the facts are the same either way)."""
        with collections_paused():
            return self._extract(docs, chunks, cache if cache is not None else FragmentCache())

    def _extract(self, docs: list[Document], chunks: list[Chunk], cache: FragmentCache) -> GraphFacts:
        facts = GraphFacts()
        index = NoteIndex(docs)
        kinds = entity_kinds(docs, index, self.ontology, self.namespace)
        entity_of = entity_ids(kinds, docs)
        by_doc: dict[str, list[Chunk]] = defaultdict(list)
        for chunk in chunks:
            by_doc[chunk.doc_id].append(chunk)
        keys = {doc.id: document_key(doc, by_doc[doc.id]) for doc in docs}
        for doc in docs:
            absorb(facts, cache.get("note", doc.id, keys[doc.id], lambda: self._note(doc, by_doc[doc.id])))
        pages = Counter(entity_of.values())
        for doc in docs:
            if doc.id not in entity_of:
                continue
            kind, eid = kinds[doc.id][0], entity_of[doc.id]
            if pages[eid] > 1:  # notes of one entity merge their rows, in order: made each run
                self._entity(facts, doc, kind, eid)
            else:
                absorb(
                    facts,
                    cache.get(
                        "entity",
                        doc.id,
                        content_hash(keys[doc.id], kind),
                        lambda: self._entity(Fragment(), doc, kind, eid),
                    ),
                )
        for note in sorted(set(kinds) - set(keys)):
            _missing_note_entity(facts, kinds[note], entity_of[note])
        context = _LinkContext(
            index, kinds, entity_of, dict(facts.nodes["Entity"]), Resolver(index, entity_of, self.namespace)
        )
        for doc in docs:
            targets = cache.get("targets", doc.id, keys[doc.id], lambda: link_targets(doc, by_doc[doc.id]))
            key = content_hash(keys[doc.id], repr(self._link_view(doc, targets, context)))
            absorb(facts, cache.get("links", doc.id, key, lambda: self._links(doc, by_doc[doc.id], context)))
        speakers = self.speakers.knowing(facts)
        add_speakers(facts, docs, speakers)
        self._mentions(facts, docs, by_doc, index, entity_of, cache, keys)
        for doc in docs:
            if doc.segments:
                absorb(
                    facts,
                    cache.get("self", doc.id, keys[doc.id], lambda: _self_mentions(doc, by_doc[doc.id], speakers)),
                )
        for doc in docs:
            absorb(facts, cache.get("dates", doc.id, keys[doc.id], lambda: _dates(doc, by_doc[doc.id])))
        people = content_hash(repr(sorted(speakers.people.items())))
        for doc in docs:
            if doc.segments:
                key = content_hash(keys[doc.id], people)
                absorb(facts, cache.get("episodes", doc.id, key, lambda: self._episodes(doc, by_doc[doc.id], speakers)))
        key = content_hash(
            repr([(d.id, d.day) for d in docs if d.day]), repr(sorted(facts.nodes["Day"])),
            repr(sorted((e["start_time"], e["id"]) for e in facts.nodes["Episode"].values())),
            repr(sorted((r["dst"]) for r in facts.edges.get(("ON_DAY", "Episode", "Day"), {}).values())),
        )
        absorb(facts, cache.get("days", "", key, lambda: _days(facts, docs)))
        cache.keep_only(set(keys))
        return facts

    def _episodes(self, doc: Document, chunks: list[Chunk], speakers: SpeakerMap) -> GraphFacts:
        part = GraphFacts()
        add_episodes(part, doc, chunks, self.namespace, speakers)
        return part

    def _links(self, doc: Document, chunks: list[Chunk], context: "_LinkContext") -> Fragment:
        part = Fragment()
        self._properties(part, doc, context)
        self._body_links(part, doc, chunks, context)
        own = context.entity_of.get(doc.id)
        if own is not None:
            _link_relations(part, doc, own, link_weights(doc, context.resolve))
        _link_text_aliases(part, doc, own, link_texts(doc, chunks, context.resolve))
        return part

    def _link_view(self, doc: Document, targets: list[tuple[str, str]], context: "_LinkContext") -> list[Any]:
        """What a document's link rows depend on besides the document: where each link leads
        (the note, its entity and kind; for a relation property, whether the entity it
        implies exists), and the document's own entity."""
        view: list[Any] = [context.entity_of.get(doc.id), context.kinds.get(doc.id)]
        for target, prop in targets:
            found = context.index.find(target)
            entity = context.resolve(target)
            implied = None
            rel = self.ontology.relation_for_key(prop) if prop else None
            if rel is not None and ANY not in rel.range:
                implied = entity_id(rel.range[0], target) in context.entities
            kind = context.entities[entity]["kind"] if entity in context.entities else None
            view.append((target, prop, found.id if found else None, entity, kind, implied))
        return view

    def _note(self, doc: Document, chunks: list[Chunk]) -> Fragment:
        part = Fragment()
        part.add_node("Note", {
            "id": doc.id, "path": doc.path, "title": doc.title, "kind": doc.kind, "source": doc.source,
            "tags": sorted(doc.tags), "properties": json.dumps(doc.properties, sort_keys=True, ensure_ascii=False),
            "day": doc.day or "", "created": doc.created or "", "content_hash": doc.content_hash, "present": True,
        })
        for chunk in chunks:
            part.add_node("Chunk", {
                "id": chunk.id, "doc_id": doc.id, "position": chunk.position, "heading": chunk.heading,
                "text": chunk.text, "timestamp": chunk.timestamp or "",
            })
            part.add_edge("HAS_CHUNK", "Note", "Chunk", edge("HAS_CHUNK", doc.id, chunk.id, doc.id))
            if chunk.next_id:
                part.add_edge("NEXT", "Chunk", "Chunk", edge("NEXT", chunk.id, chunk.next_id, doc.id))
        return part

    def _entity(self, facts: F, doc: Document, kind: str, eid: str) -> F:
        """The rows of an entity note (its entity merged with the one `facts` holds from an
        earlier note of the same entity), added to `facts`, which are returned."""
        existing = facts.nodes.get("Entity", {}).get(eid)
        names = [*doc.aliases, *(t for t in doc.former_titles if t != doc.title)]
        aliases = sorted(set(names) | set(existing["aliases"] if existing else []))
        facts.add_node("Entity", {
            "id": eid, "kind": kind, "name": doc.title, "aliases": aliases,
            "properties": json.dumps(_plain_properties(doc, self.ontology), sort_keys=True, ensure_ascii=False),
            "doc_id": existing["doc_id"] if existing else doc.id, "origin": "note",
        })
        facts.add_edge("PAGE_OF", "Note", "Entity", edge("PAGE_OF", doc.id, eid, doc.id))
        for alias in names:
            alias_id = "alias_" + content_hash(eid, alias)
            facts.add_node(
                "Alias",
                {"id": alias_id, "name": alias, "norm": normalize_name(alias), "entity_id": eid, "doc_id": doc.id},
            )
            facts.add_edge("ALIAS_OF", "Alias", "Entity", edge("ALIAS_OF", alias_id, eid, doc.id))
        return facts

    def _target(self, part: Fragment, link_target: str, context: "_LinkContext") -> _Target:
        doc = context.index.find(link_target)
        if doc is not None:
            return _Target(doc.id, context.entity_of.get(doc.id))
        note_id = ghost_id(self.namespace, link_target)
        entity = context.entity_of.get(note_id)
        if part.node("Note", note_id) is None:
            part.add_node("Note", {
                "id": note_id, "path": "", "title": link_target.strip(), "kind": "note", "source": "",
                "tags": [], "properties": "{}", "day": "", "created": "", "content_hash": "", "present": False,
            })
        return _Target(note_id, entity)

    def _properties(self, part: Fragment, doc: Document, context: "_LinkContext") -> None:
        source = context.entity_of.get(doc.id)
        for link in doc.links:
            if not link.property or link.property.lower() in self.ontology.type_keys:
                continue
            target = self._target(part, link.target, context)
            part.add_edge(
                "LINKS_TO", "Note", "Note", edge("LINKS_TO", doc.id, target.note_id, doc.id, role=link.property)
            )
            rel = self.ontology.relation_for_key(link.property)
            if target.entity is None and source is not None and rel is not None and ANY not in rel.range:
                target.entity = self._implied_entity(part, link.target, rel.range[0], context)
            if source is None or target.entity is None or target.entity == source:
                continue
            source_kind = context.kinds[doc.id][0]
            target_kind = (part.node("Entity", target.entity) or context.entities[target.entity])["kind"]
            relation, role = (rel.name, "") if rel else ("related_to", link.property)
            if self.ontology.check(relation, source_kind, target_kind):
                relation, role = "related_to", link.property
            part.add_edge(relation.upper(), "Entity", "Entity", edge(
                relation.upper(), source, target.entity, doc.id, role=role, method=f"property:{link.property}",
                observed_at=doc.modified or "",
            ))

    def _implied_entity(self, part: Fragment, name: str, kind: str, context: "_LinkContext") -> str:
        """An entity named by a relation property whose note does not exist yet."""
        eid = entity_id(kind, name)
        if eid not in context.entities and part.node("Entity", eid) is None:
            part.add_node("Entity", {
                "id": eid, "kind": kind, "name": name.strip(), "aliases": [], "properties": "{}",
                "doc_id": "", "origin": "link",
            })
        return eid

    def _body_links(self, part: Fragment, doc: Document, chunks: list[Chunk], context: "_LinkContext") -> None:
        own = context.entity_of.get(doc.id)
        for chunk in chunks:
            text = prose(chunk.text)
            for link, start, end in located_wikilinks(text):
                target = self._target(part, link.target, context)
                if target.note_id != doc.id:
                    part.add_edge("LINKS_TO", "Note", "Note", edge(
                        "LINKS_TO", doc.id, target.note_id, doc.id, method="embed" if link.embed else "wikilink",
                    ))
                if target.entity and target.entity != own:
                    part.add_edge("MENTIONS", "Chunk", "Entity", edge(
                        "MENTIONS", chunk.id, target.entity, doc.id, start=start, end=end,
                        surface=text[start:end], method="wikilink",
                    ))

    def _mentions(
        self, facts: GraphFacts, docs: list[Document], by_doc: dict[str, list[Chunk]],
        index: NoteIndex, entity_of: dict[str, str], cache: FragmentCache, keys: dict[str, str],
    ) -> None:
        entities = facts.nodes["Entity"]
        related = neighbours(facts)
        untyped = [e for e in entities.values() if e["kind"] == self.ontology.default_type]
        names = [n for e in untyped for n in (e["name"], *(e["aliases"] or []))]
        common = common_words(names, (c.text for c in chain.from_iterable(by_doc.values())))
        known = content_hash(
            repr(sorted((e["id"], e["kind"], e["name"], list(e["aliases"] or [])) for e in entities.values())),
            repr(sorted((k, sorted(v)) for k, v in related.items())), repr(sorted(common)),
        )
        resolve = Resolver(index, entity_of, self.namespace)
        matcher: list[AliasMatcher] = []  # built on the first document that needs it
        for doc in docs:
            linked = {resolve(link.target) for link in doc.links}
            key = content_hash(keys[doc.id], known, repr(sorted(map(str, linked))), str(entity_of.get(doc.id)))

            def make(doc: Document = doc, linked: set[str | None] = linked) -> Fragment:
                if not matcher:
                    matcher.append(AliasMatcher(entities.values(), skip=common))
                part = Fragment()
                if matcher[0].owners:
                    doc_mentions(
                        part, doc, by_doc[doc.id], matcher[0], linked, entity_of.get(doc.id), entities, related
                    )
                return part

            absorb(facts, cache.get("mentions", doc.id, key, make))


@dataclass
class _LinkContext:
    """What link rows are resolved against: notes by name, entity notes, entities so far."""

    index: NoteIndex
    kinds: dict[str, tuple[str, str]]
    entity_of: dict[str, str]
    entities: dict[str, dict[str, Any]]
    resolve: Resolver


def document_key(doc: Document, chunks: list[Chunk]) -> str:
    """A digest of what the per-document steps read of a document and its chunks."""
    head = (doc.id, doc.path, doc.title, doc.kind, doc.source, doc.content_hash, doc.created, doc.modified,
            doc.day, doc.aliases, doc.tags, doc.properties, doc.links, len(doc.segments), doc.former_titles)
    parts = [(c.id, c.position, c.heading, c.timestamp, c.next_id, c.metadata.get("doc_key"),
              c.metadata.get("turn_ids"), c.metadata.get("episode")) for c in chunks]
    return content_hash(repr(head), repr(parts))


def _missing_note_entity(facts: GraphFacts, kind_name: tuple[str, str], eid: str) -> None:
    """The entity of a note that does not exist but that several notes link to."""
    if eid not in facts.nodes["Entity"]:
        facts.add_node("Entity", {
            "id": eid, "kind": kind_name[0], "name": kind_name[1], "aliases": [], "properties": "{}",
            "doc_id": "", "origin": "link",
        })


def _link_relations(part: Fragment, doc: Document, own: str, weights: Counter[str]) -> None:
    """REFERS_TO from the note's entity to each entity it links to, weighted by the link count."""
    for target, count in sorted(weights.items()):
        if target != own:
            part.add_edge("REFERS_TO", "Entity", "Entity", edge(
                "REFERS_TO", own, target, doc.id, props={"weight": count}, method="wikilink",
                observed_at=doc.modified or "",
            ))


def _link_text_aliases(part: Fragment, doc: Document, own: str | None, texts: Counter[tuple[str, str]]) -> None:
    """Display texts of the note's links as weak aliases of their targets: an Alias node per text
    and linking note, and an ALIAS_OF edge with method `link_text` and the number of such links."""
    for (target, text), count in sorted(texts.items()):
        if target == own:
            continue
        alias_id = link_text_alias_id(target, text, doc.id)
        part.add_node(
            "Alias", {"id": alias_id, "name": text, "norm": normalize_name(text), "entity_id": target, "doc_id": doc.id}
        )
        part.add_edge("ALIAS_OF", "Alias", "Entity", edge(
            "ALIAS_OF", alias_id, target, doc.id, props={"count": count}, method=LINK_TEXT,
        ))


def _days(facts: GraphFacts, docs: list[Document]) -> GraphFacts:
    """The timeline's days and chains, over the Days and Episodes the facts hold so far."""
    part = GraphFacts()
    part.nodes["Day"] = dict(facts.nodes["Day"])
    part.nodes["Episode"] = facts.nodes["Episode"]  # read only
    part.edges[("ON_DAY", "Episode", "Day")] = facts.edges.get(("ON_DAY", "Episode", "Day"), {})  # read only
    add_days(part, docs)
    part.nodes["Episode"] = {}
    del part.edges[("ON_DAY", "Episode", "Day")]
    return part


def _self_mentions(doc: Document, chunks: list[Chunk], speakers: SpeakerMap) -> Fragment:
    part = Fragment()
    add_self_mentions(part, [doc], chunks, speakers)
    return part


def _dates(doc: Document, chunks: list[Chunk]) -> Fragment:
    """Days written in the text, relative to the document's (or chat turn's) own date."""
    part = Fragment()
    for chunk in chunks:
        anchor = anchor_day(chunk.timestamp if doc.kind == "chat" else None, doc.day, doc.created)
        text = prose(chunk.text)
        taken = [(s, e) for _, s, e in located_wikilinks(text)]
        for found in find_dates(text, anchor, relative=doc.kind in ("journal", "chat")):
            if any(s < found.end and found.start < e for s, e in taken):
                continue
            part.add_node("Day", {"id": found.day})
            part.add_edge("MENTIONS_DAY", "Chunk", "Day", edge(
                "MENTIONS_DAY", chunk.id, found.day, doc.id, start=found.start, end=found.end,
                surface=text[found.start:found.end], method=found.method,
            ))
    return part
