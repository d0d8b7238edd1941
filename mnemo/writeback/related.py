"""Notes related to a note that the note does not link yet, each with its reason in plain words.

A note's neighbours are the notes it links or that link it, and the entities its passages
mention. Two notes that share neighbours are related, each shared neighbour counting the less
the more notes share it (a hub that half the vault links says little), and a candidate that links
widely counts for less (divided by the square root of its own neighbours, as in a cosine); a relation
in the graph between the two notes' subjects (Alice Chen works on Project Heron), or one note naming
the other's subject in its text, counts more. Notes already
linked either way, the note itself and journal days (they are listed as mentions) are left out:
what is written is what the person does not already have in the note or its backlinks.
"""

import math
from collections import defaultdict
from dataclasses import dataclass, field

_RELATION_WEIGHT = 2.0
_SUBJECT_WEIGHT = 1.5
_MIN_SCORE = 0.05  # one neighbour shared by more than 20 notes is not enough on its own
_REASON_NAMES = 3
_MAX_SHARING = 200


@dataclass(frozen=True)
class Related:
    note_id: str
    why: str


@dataclass
class Neighbourhood:
    """What relatedness is computed from, for the notes of one namespace."""

    names: dict[str, str]  # note id or entity id -> its name in words
    linked: dict[str, set[str]]  # note id -> notes linked either way
    neighbours: dict[str, set[str]] = field(default_factory=dict)  # note id -> notes and entities
    subjects: dict[str, list[str]] = field(default_factory=dict)  # note id -> its page entities
    relations: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # entity -> (a, table, b)
    page_of: dict[str, str] = field(default_factory=dict)  # entity id -> its note

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
) -> list[Related]:
    """The `limit` notes most related to `note` among `eligible`, best first, each with why."""
    scores: defaultdict[str, float] = defaultdict(float)
    shared: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for item in sorted(space.neighbours.get(note, ())):  # a fixed order: the same sums in every process
        others = sharing.get(item, set())
        if len(others) > _MAX_SHARING:  # adds under 1/200 to each: skipped, so a hub costs no N² work
            continue
        for other in sorted(others):
            scores[other] += 1.0 / len(others)
            shared[other].append((len(others), item))
    for other in scores:  # a hub shares something with every note: its own breadth counts against it
        scores[other] /= math.sqrt(max(len(space.neighbours.get(other, ())), 1))
    facts = _relation_facts(space, note, sharing)
    for other, fact in facts.items():
        scores[other] += _RELATION_WEIGHT if fact[1] else _SUBJECT_WEIGHT
    skip = space.linked.get(note, set()) | {note}
    ranked = sorted(
        (o for o, s in scores.items() if o in eligible and o not in skip and s >= _MIN_SCORE),
        key=lambda o: (-scores[o], space.names.get(o, ""), o),
    )
    return [Related(o, _why(space, shared.get(o, []), facts.get(o))) for o in ranked[:limit]]


def _relation_facts(space: Neighbourhood, note: str, sharing: dict[str, set[str]]) -> dict[str, tuple[str, bool]]:
    """other note -> (a sentence on how their subjects relate, whether a typed relation says it)."""
    facts: dict[str, tuple[str, bool]] = {}
    mine = space.subjects.get(note, [])
    name = space.names.get
    for entity in mine:
        for a, table, b in space.relations.get(entity, ()):
            other = space.page_of.get(b if a == entity else a)
            if other is not None and other != note:
                facts.setdefault(other, (f"{name(a, a)} {verb(table)} {name(b, b)}", True))
    for entity in sorted(space.neighbours.get(note, ())):
        other = space.page_of.get(entity)
        if other is not None and other != note:
            facts.setdefault(other, (f"this note mentions {name(entity, entity)}", False))
    for entity in mine:
        for other in sorted(sharing.get(entity, ())):
            if other != note:
                facts.setdefault(other, (f"it mentions {name(entity, entity)}", False))
    return facts


def _why(space: Neighbourhood, shared: list[tuple[int, str]], fact: tuple[str, bool] | None) -> str:
    names = list(dict.fromkeys(space.names[i] for _, i in sorted(shared) if space.names.get(i)))
    parts = [fact[0]] if fact else []
    if names:
        more = len(names) - _REASON_NAMES
        parts.append("shares " + ", ".join(names[:_REASON_NAMES]) + (f" and {more} more" if more > 0 else ""))
    return "; ".join(parts)
