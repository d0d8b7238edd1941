"""Notes related to a note that the note does not link yet, each with the evidence it has.

A note's neighbours are the notes it links or that link it, and the entities its passages
mention. Two notes that share neighbours are related, each shared neighbour counting the less
the more notes share it (a hub that half the vault links says little), and a candidate that links
widely counts for less (divided by the square root of its own neighbours, as in a cosine); a relation
in the graph between the two notes' subjects (Alice Chen works on Project Heron), or one note naming
the other's subject in its text, counts more, and so does a note whose text names the other's title
in plain words (named.py), the less the more notes name it. Notes already
linked either way, the note itself and journal days (they are listed as mentions) are left out:
what is written is what the person does not already have in the note or its backlinks. Only a
note whose evidence reaches `MIN_EVIDENCE` is written: the threshold chosen by link prediction
(`mnemo eval links`, docs/EVALUATION.md).
"""

import math
from collections import defaultdict
from dataclasses import dataclass, field

_RELATION_WEIGHT = 2.0
_SUBJECT_WEIGHT = 1.5
NAMED_WEIGHT = 1.0
MIN_EVIDENCE = 0.1  # chosen on logseq-docs by `mnemo eval links` (docs/EVALUATION.md)
_MAX_SHARING = 200


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
    skip = space.linked.get(note, set()) | {note}
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
