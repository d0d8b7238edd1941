"""Every note is an entity and every link an edge: the person's own link graph.

A note's entity type comes, in order, from what the note declares (type keys, tags, Logseq
`type::` / `tags::`), its folder's name when that names a type (`People/` -> person), the
range of a relation property that links to it (`author: [[X]]` -> person), and otherwise the
ontology's `default_type`. Journal pages stay Days and conversations stay Episodes unless
they declare a type. A link target without a note becomes an entity when at least two
notes link to it (Obsidian users start a topic that way). A renamed note keeps the entity id
it had under its first title.
"""

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Any

from mnemo.documents import Chunk, Document, content_hash, entity_id, normalize_name
from mnemo.extract.dates import find_dates
from mnemo.facts import GraphFacts
from mnemo.sources.markdown import as_strings, located_wikilinks, prose
from ontology import ANY, Ontology

LINK_TEXT = "link_text"  # the method of ALIAS_OF edges made from link display texts
LINK_TEXT_PREFIX = "alias_link_"
MIN_GHOST_LINKS = 2  # distinct notes that must link to a missing note for it to become an entity
Kinds = dict[str, tuple[str, str]]  # note id (or missing-note id) -> (entity type, name)
_WORDS = re.compile(r"[^\W\d_]+")
_ATTACHMENT = re.compile(r"\.(base|canvas|excalidraw|png|jpe?g|gif|svg|webp|pdf|mp[34]|m4a|wav|mov|webm|zip|csv)$")


class NoteIndex:
    """Resolves wikilink targets the way Obsidian does: by file name, then by path, then by alias
    (a former title of a renamed note counts as an alias)."""

    def __init__(self, docs: list[Document]) -> None:
        self.by_key: dict[str, Document] = {}
        docs = [d for d in docs if d.kind != "chat"]  # conversations are not link targets
        for doc in sorted(docs, key=lambda d: (d.path.count("/"), d.path)):
            self.by_key.setdefault(doc.title.lower(), doc)
            self.by_key.setdefault(doc.path.removesuffix(".md").lower(), doc)
        self.by_alias: dict[str, Document] = {}
        for doc in sorted(docs, key=lambda d: d.path):
            for alias in (*doc.aliases, *doc.former_titles):
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


def folder_kind(doc: Document, ontology: Ontology) -> str | None:
    """The type the nearest folder of the note names (`People/Ana.md` -> person)."""
    for folder in reversed(PurePosixPath(doc.path).parent.parts):
        kind = ontology.entity_type_for(folder)
        if kind:
            return kind
    return None


def note_entity_id(doc: Document, kind: str) -> str:
    """A note's entity id: from its first title, so that renaming the note keeps it."""
    return entity_id(kind, doc.former_titles[0] if doc.former_titles else doc.title)


def entity_ids(kinds: Kinds, docs: list[Document]) -> dict[str, str]:
    """Note id -> entity id, for the notes (and missing notes) `kinds` makes entities."""
    by_id = {doc.id: doc for doc in docs}
    return {
        note: note_entity_id(by_id[note], kind) if note in by_id else entity_id(kind, name)
        for note, (kind, name) in kinds.items()
    }


def entity_kinds(docs: list[Document], index: NoteIndex, ontology: Ontology, namespace: str) -> Kinds:
    """Note id -> (type, name) for every note that is an entity, and for missing notes that
    enough notes link to."""
    kinds: Kinds = {d.id: (k, d.title) for d in docs if (k := note_kind(d, ontology))}
    for doc in docs:
        if doc.kind == "note" and doc.id not in kinds and (kind := folder_kind(doc, ontology)):
            kinds[doc.id] = (kind, doc.title)
    implied = _implied_kinds(docs, ontology)
    for target, kind in sorted(implied.items()):
        found = index.find(target)
        if found is not None and found.id not in kinds:
            kinds[found.id] = (kind, found.title)
    if ontology.default_type:
        for doc in docs:
            if doc.kind == "note" and doc.id not in kinds:
                kinds[doc.id] = (ontology.default_type, doc.title)
        for target, name in _linked_missing(docs, index).items():
            kinds[ghost_id(namespace, target)] = (implied.get(target, ontology.default_type), name)
    return kinds


def _implied_kinds(docs: list[Document], ontology: Ontology) -> dict[str, str]:
    """Link target (lower case) -> the type a relation property linking to it implies (first in path order)."""
    implied: dict[str, str] = {}
    for doc in sorted(docs, key=lambda d: d.path):
        for link in doc.links:
            if not link.property:
                continue
            rel = ontology.relation_for_key(link.property)
            if rel is None or ANY in rel.range or link.property.lower() in ontology.type_keys:
                continue
            implied.setdefault(link.target.strip().lower(), rel.range[0])
    return implied


def _linked_missing(docs: list[Document], index: NoteIndex) -> dict[str, str]:
    """Targets (lower case) of links from notes to notes that do not exist, linked from at
    least MIN_GHOST_LINKS notes, with the spelling first seen in path order. Embeds and
    attachments are files, not topics; dates are Days."""
    sources: dict[str, set[str]] = defaultdict(set)
    spelling: dict[str, str] = {}
    for doc in sorted(docs, key=lambda d: d.path):
        if doc.kind != "note":
            continue
        for link in doc.links:
            key = link.target.strip().removesuffix(".md").lower()
            if link.embed or _ATTACHMENT.search(key) or (key not in sources and index.find(key) is not None):
                continue
            sources[key].add(doc.id)
            spelling.setdefault(key, link.target.strip())
    return {
        key: spelling[key] for key, found in sorted(sources.items())
        if len(found) >= MIN_GHOST_LINKS and index.find(key) is None and not _is_date(spelling[key])
    }


def _is_date(text: str) -> bool:
    """A link target that is a date (`2024-05-01`, `Dec 12th, 2020`): the timeline holds it."""
    return any(found.start == 0 and found.end >= len(text.rstrip()) for found in find_dates(text, None, relative=False))


def link_weights(doc: Document, resolve: "Resolver") -> Counter[str]:
    """Entity id -> how many links the note has to it (properties, body links, embeds, tags)."""
    counts: Counter[str] = Counter()
    for link in doc.links:
        found = resolve(link.target)
        if found:
            counts[found] += 1
    return counts


def link_targets(doc: Document, chunks: list[Chunk]) -> list[tuple[str, str]]:
    """(target, property) of every link the link steps resolve: the document's links, then the
    wikilinks of its chunks."""
    found = [(link.target, link.property or "") for link in doc.links]
    for chunk in chunks:
        found.extend((link.target, "") for link, _, _ in located_wikilinks(prose(chunk.text)))
    return found


def link_texts(doc: Document, chunks: list[Chunk], resolve: "Resolver") -> Counter[tuple[str, str]]:
    """(entity id, display text) -> count, for links that show a text other than their target:
    `[[Shiny object syndrome|I never finish anything]]`."""
    counts: Counter[tuple[str, str]] = Counter()
    for chunk in chunks:
        for link, _, _ in located_wikilinks(prose(chunk.text)):
            text = (link.display or "").strip()
            if not text or normalize_name(text) in ("", normalize_name(link.target)):
                continue
            found = resolve(link.target)
            if found:
                counts[(found, text)] += 1
    return counts


def link_text_alias_id(entity: str, text: str, doc_id: str) -> str:
    """The Alias node of one note's display text for links to `entity` (one per linking note)."""
    return LINK_TEXT_PREFIX + content_hash(entity, text, doc_id)


def link_text_aliases(facts: GraphFacts) -> dict[str, list[str]]:
    """Entity id -> the display texts of links to it, the one most notes use first (read from
    the Alias nodes alone: one per text and linking note)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for alias_id, row in facts.nodes.get("Alias", {}).items():
        if alias_id.startswith(LINK_TEXT_PREFIX):
            counts[row["entity_id"]][row["name"]] += 1
    return {e: [t for t, _ in sorted(c.items(), key=lambda p: (-p[1], p[0]))] for e, c in counts.items()}


def grounding_entities(facts: GraphFacts) -> dict[str, dict[str, Any]]:
    """The facts' entity rows with the display texts of links to them added to their aliases:
    what an extractor's grounding looks names up in."""
    linked_as = link_text_aliases(facts)
    return {
        eid: {**row, "aliases": [*(row["aliases"] or []), *linked_as[eid]]} if eid in linked_as else row
        for eid, row in facts.nodes["Entity"].items()
    }


class Resolver:
    """Link target -> the entity it stands for (a note's, or a missing note's), or None."""

    def __init__(self, index: NoteIndex, entity_of: dict[str, str], namespace: str) -> None:
        self.index = index
        self.entity_of = entity_of
        self.namespace = namespace

    def note_id(self, target: str) -> str:
        found = self.index.find(target)
        return found.id if found is not None else ghost_id(self.namespace, target)

    def __call__(self, target: str) -> str | None:
        return self.entity_of.get(self.note_id(target))


def common_words(names: Iterable[str], texts: Iterable[str]) -> frozenset[str]:
    """One-word names (lower case) that the person writes as ordinary words: in the namespace's
    passages, in lower case at least as often as capitalized (`home`, `ideas`, `index`, a Logseq
    page called `block`). Such a name mentions its entity only through a link. The caller passes
    the names of untyped notes: a note whose type is declared was named as a thing on purpose."""
    candidates = {n.lower() for n in names if n.isalpha() and not n.isupper()}
    if not candidates:
        return frozenset()
    lower: Counter[str] = Counter()
    capital: Counter[str] = Counter()
    for text in texts:
        for word, count in Counter(_WORDS.findall(text)).items():
            key = word.lower()
            if key in candidates:
                (lower if word == key else capital)[key] += count
    return frozenset(k for k in candidates if lower[k] and lower[k] >= capital[k])
