""""I", "me" and "myself" in the namespace's own chat turns mention the self entity.

Who spoke (speaker entities, SAID_BY, the self mapping) is the timeline's business
(`mnemo.extract.timeline.SpeakerMap`); this module finds, inside a turn chunk, the text
the namespace's own person wrote (a chunk may pack several short turns, each opened by
its `Speaker: ` label) and the first-person pronouns in it.
"""

import re
from dataclasses import dataclass

from mnemo.documents import Chunk, Document, Segment
from mnemo.extract.fragments import Fragment
from mnemo.extract.timeline import SpeakerMap
from mnemo.facts import edge
from mnemo.sources.markdown import prose

_FIRST_PERSON = re.compile(r"(?<![\w'’-])(I|me|Me|ME|myself|Myself)(?![\w-])")


@dataclass(frozen=True)
class SelfPronoun:
    start: int
    end: int


def self_pronouns(text: str, start: int = 0, end: int | None = None) -> list[SelfPronoun]:
    """Spans of "I", "me" and "myself" as words (not the "I" of "I/O") within text[start:end]."""
    pattern = _FIRST_PERSON.finditer(text, start, len(text) if end is None else end)
    return [SelfPronoun(m.start(), m.end()) for m in pattern if not _in_token(text, m)]


def _in_token(text: str, match: re.Match[str]) -> bool:
    """True for "I" in "I/O", "A.I." and similar tokens."""
    after = text[match.end(): match.end() + 1]
    before = text[match.start() - 1: match.start()] if match.start() else ""
    return after == "/" or before in ("/", ".")


def turn_regions(text: str, window: list[Segment]) -> list[tuple[Segment, int, int]]:
    """(turn, start, end) of each turn's words in a turn chunk's text, speaker labels left out.

    A window of turns is `Speaker: text` joined by blank lines; a later piece of a long
    turn has no label. When the text is not laid out so, no region is claimed.
    """
    bounds: list[tuple[int, int]] = []
    for i, turn in enumerate(window):
        label = f"{turn.speaker}: "
        if i == 0:
            bounds.append((0, len(label) if text.startswith(label) else 0))
            continue
        at = text.find("\n\n" + label, bounds[-1][1])
        if at < 0:
            return []
        bounds.append((at + 2, at + 2 + len(label)))
    ends = [start for start, _ in bounds[1:]] + [len(text)]
    return [(turn, body, end) for turn, (_, body), end in zip(window, bounds, ends)]


def add_self_mentions(facts: Fragment, docs: list[Document], chunks: list[Chunk], speakers: SpeakerMap) -> None:
    """MENTIONS of the self entity for each first-person pronoun in the self's own turns."""
    turns = {(d.id, s.id): s for d in docs for s in d.segments if s.kind == "turn"}
    for chunk in chunks:
        window = [turns.get((chunk.doc_id, i)) for i in chunk.metadata.get("turn_ids") or []]
        if not window or None in window:
            continue
        text = prose(chunk.text)
        for turn, start, end in turn_regions(text, [t for t in window if t is not None]):
            if not speakers.is_self(turn):
                continue
            for pronoun in self_pronouns(text, start, end):
                facts.add_edge("MENTIONS", "Chunk", "Entity", edge(
                    "MENTIONS", chunk.id, speakers.self_id, chunk.doc_id, start=pronoun.start, end=pronoun.end,
                    surface=text[pronoun.start:pronoun.end], method="self",
                ))
