"""Where a note's subject was mentioned: the journal days and chats that name it.

A journal day counts when its page links the note or its passages mention one of the note's
subjects (its page entities); a chat counts when one of its turns mentions one. Each place is
counted once; the newest are listed first.
"""

from collections import defaultdict
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Place:
    """A journal day (`note_id` set: its page) or a chat (`title` only), on `day` (ISO date)."""

    day: str
    title: str
    note_id: str | None = None


@dataclass(frozen=True)
class Mentioned:
    places: tuple[Place, ...]  # newest first, at most the configured number
    count: int
    last: str | None


@dataclass
class Mentions:
    """Per subject (entity) and per linked note, the places that mention it."""

    of_entity: dict[str, set[Place]]
    of_note: dict[str, set[Place]]

    @classmethod
    def empty(cls) -> "Mentions":
        return cls(defaultdict(set), defaultdict(set))

    def add_entity(self, entity: str, place: Place) -> None:
        self.of_entity[entity].add(place)

    def add_note(self, note: str, place: Place) -> None:
        self.of_note[note].add(place)

    def of(self, note: str, subjects: list[str], limit: int) -> Mentioned:
        places = set(self.of_note.get(note, ()))
        for entity in subjects:
            places |= self.of_entity.get(entity, set())
        places = {p for p in places if p.note_id != note}
        ranked = sorted(places, key=lambda p: (p.day, p.title, p.note_id or ""), reverse=True)
        return Mentioned(tuple(ranked[:limit]), len(ranked), ranked[0].day if ranked else None)
