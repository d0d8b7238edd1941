"""Notes related to a note that the note does not link yet, each with the evidence it has.

A note's neighbours are the notes it links or that link it, and the entities its passages
mention. Two notes that share neighbours are related, each shared neighbour counting the less
the more notes share it (a hub that half the vault links says little), and a candidate that links
widely counts for less (divided by the square root of its own neighbours, as in a cosine); a relation
in the graph between the two notes' subjects (Alice Chen works on Project Heron), or one note naming
the other's subject in its text, counts more, and so does a note whose text names the other's title
in plain words (named.py), the less the more notes name it. Closeness in meaning (the cosine of the
two notes' mean passage embeddings, note_vectors.py) multiplies that evidence: up to twice as much
for two notes of the same meaning, unchanged at or below the floor; meaning alone makes no related
note (added as evidence of its own, it lowered recall on logseq-docs, docs/EVALUATION.md). Notes already
linked either way, the note itself and journal days (they are listed as mentions) are left out:
what is written is what the person does not already have in the note or its backlinks. A hub, a
note linked with a large share of the vault (`hub_notes`), gets no related notes and is no one's
related note: it is related to everything, so to nothing in particular. An index page, a note of
links and embeds and not a word of its own (a category page that embeds its list), gets none
either (nothing in it says what it is close to) but may still be offered: a book's author page is
a fair related link of the book. Only a
note whose evidence reaches `MIN_EVIDENCE` is written: the threshold chosen by link prediction
(`mnemo eval links`, docs/EVALUATION.md).
"""

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from mnemo.sleep.view import HUB_MIN, HUB_SHARE
from mnemo.writeback.note_vectors import NoteVectors, meaning_weight

_RELATION_WEIGHT = 2.0
_SUBJECT_WEIGHT = 1.5
NAMED_WEIGHT = 1.0
MIN_EVIDENCE = 0.1  # chosen on logseq-docs by `mnemo eval links` (docs/EVALUATION.md)
_MAX_SHARING = 200
_WORD = re.compile(r"[^\W_]+")
_LINK = re.compile(r"!?\[\[[^\[\]]*\]\]")


@dataclass(frozen=True)
class Related:
    note_id: str
    evidence: float


@dataclass
class Neighbourhood:
    """What relatedness is computed from, for the notes of one namespace."""

    names: dict[str, str]  # note id or entity id -> its name in words
    linked: dict[str, set[str]]  # note id -> notes linked either way
    neighbours: dict[str, set[str]] = field(default_factory=dict)  # note id -> notes and entities
    subjects: dict[str, list[str]] = field(default_factory=dict)  # note id -> its page entities
    relations: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # entity -> (a, table, b)
    page_of: dict[str, str] = field(default_factory=dict)  # entity id -> its note
    named: dict[str, set[str]] = field(default_factory=dict)  # note id -> notes whose title its text names
    named_by: dict[str, set[str]] = field(default_factory=dict)  # note id -> notes that name its title
    meanings: NoteVectors | None = None  # each note's mean passage embedding
    hubs: set[str] = field(default_factory=set)  # notes that take no related notes and are none
    index_pages: set[str] = field(default_factory=set)  # notes that take no related notes

    def by_neighbour(self) -> dict[str, set[str]]:
        found: dict[str, set[str]] = defaultdict(set)
        for note, around in self.neighbours.items():
            for item in around:
                found[item].add(note)
        return found


def verb(table: str) -> str:
    """`WORKS_ON` -> `works on`."""
    return table.lower().replace("_", " ")


def related_notes(
    space: Neighbourhood, note: str, eligible: set[str], sharing: dict[str, set[str]], limit: int,
    min_evidence: float = MIN_EVIDENCE,
) -> list[Related]:
    """The `limit` notes most related to `note` among `eligible` whose evidence reaches `min_evidence`, best first."""
    if note in space.hubs or note in space.index_pages:
        return []
    scores: defaultdict[str, float] = defaultdict(float)
    for item in sorted(space.neighbours.get(note, ())):  # a fixed order: the same sums in every process
        others = sharing.get(item, set())
        if len(others) > _MAX_SHARING:  # adds under 1/200 to each: skipped, so a hub costs no N² work
            continue
        for other in sorted(others):
            scores[other] += 1.0 / len(others)
    for other in scores:  # a hub shares something with every note: its own breadth counts against it
        scores[other] /= math.sqrt(max(len(space.neighbours.get(other, ())), 1))
    for other, typed in _subject_facts(space, note, sharing).items():
        scores[other] += _RELATION_WEIGHT if typed else _SUBJECT_WEIGHT
    for other, weight in _naming(space, note).items():
        scores[other] += weight
    if space.meanings is not None:  # closeness in meaning weighs the evidence, it is none by itself
        for other, cosine in space.meanings.cosines(note, sorted(scores)).items():
            scores[other] *= meaning_weight(cosine)
    skip = space.linked.get(note, set()) | {note} | space.hubs
    ranked = sorted(
        (o for o, s in scores.items() if o in eligible and o not in skip and s >= min_evidence),
        key=lambda o: (-scores[o], space.names.get(o, ""), o),
    )
    return [Related(o, round(scores[o], 6)) for o in ranked[:limit]]


def _naming(space: Neighbourhood, note: str) -> dict[str, float]:
    """other note -> evidence from either note naming the other's title, the less the more notes name it."""
    found: defaultdict[str, float] = defaultdict(float)
    for other in space.named.get(note, ()):
        found[other] += NAMED_WEIGHT / math.sqrt(len(space.named_by.get(other, ())) or 1)
    for other in space.named_by.get(note, ()):
        found[other] += NAMED_WEIGHT / math.sqrt(len(space.named_by[note]))
    return found


def _subject_facts(space: Neighbourhood, note: str, sharing: dict[str, set[str]]) -> dict[str, bool]:
    """other note -> whether a typed relation joins the two notes' subjects (True) or one of them
    mentions the other's subject (False)."""
    facts: dict[str, bool] = {}
    mine = space.subjects.get(note, [])
    for entity in mine:
        for a, _table, b in space.relations.get(entity, ()):
            other = space.page_of.get(b if a == entity else a)
            if other is not None and other != note:
                facts.setdefault(other, True)
    for entity in sorted(space.neighbours.get(note, ())):
        other = space.page_of.get(entity)
        if other is not None and other != note:
            facts.setdefault(other, False)
    for entity in mine:
        for other in sorted(sharing.get(entity, ())):
            if other != note:
                facts.setdefault(other, False)
    return facts


def own_words(text: str) -> int:
    """How many words a note's text holds besides its links and embeds."""
    return len(_WORD.findall(_LINK.sub(" ", text)))


def hub_notes(linked: dict[str, set[str]], notes: set[str]) -> set[str]:
    """The notes linked either way with more notes than the hub limit: `HUB_SHARE` of the notes, at
    least `HUB_MIN`, as sleep mode weighs hubs down when it finds communities."""
    limit = max(HUB_MIN, HUB_SHARE * len(notes))
    return {n for n in notes if len(linked.get(n, set()) & notes) > limit}


def index_pages(texts: dict[str, str]) -> set[str]:
    """The notes whose text is nothing but links and embeds, without a word of its own (a category
    page that only embeds the list of its members). A note with no text at all (only properties) is not one."""
    return {n for n, text in texts.items() if text.strip() and not own_words(text)}
