"""What each person in the namespace's conversations is like, as items recall can return.

Sleep mode reads every chat turn said by one person and keeps the sentences in which they
speak of themselves: what they like, what they are, what their life is ("I love camping",
"I'm a counselor", "my kids are..."). A person's sentences are grouped by topic: turns whose
vectors, less the mean of that person's, lie close together, greedily, around each group's
mean. Each group of at least `min_turns` turns becomes a profile item: the sentences, in the
order they were said, citing the turns they come from, with the group's mean vector so a question can find it. Offline:
no LLM, only the turns and their vectors. Items are written to the sleep state `speakers`;
recall reads them from there (`recall.profiles`).
"""

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from mnemo.documents import Chunk, content_hash

CENTRED_FROM = 8  # turns of a person from which their mean is taken out (fewer: it is mostly the turns themselves)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_ABOUT_SELF = re.compile(
    r"\bI(?:'m| am| was|'ve| have|'d| would)?\s+(?:\w+\s+)?(?:love|like|enjoy|adore|prefer|hate|dislike|want|wish|"
    r"hope|plan|dream|feel|think|believe|work|live|grew|moved|started|study|studied|volunteer|need|care|value)\w*\b"
    r"|\bI(?:'m| am)\s+(?:a|an|so|really|very|pretty|always|still|not|currently|also)?\s*\w+"
    r"|\bmy\s+(?:\w+\s+)?(?:job|work|career|family|kids|children|son|daughter|husband|wife|partner|home|dream|goal|"
    r"passion|hobby|hobbies|favou?rite|faith|friends|health|identity|values|parents|mom|dad|pets?|dog|cat)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Statement:
    chunk_id: str
    speaker: str
    sentences: str
    timestamp: str


def about_self(text: str) -> str:
    """The sentences of a turn in which the speaker says what they like, are or live."""
    return " ".join(s.strip() for s in _SENTENCE.findall(text) if _ABOUT_SELF.search(s)).strip()


def statements(chunks: list[Chunk]) -> list[Statement]:
    """Every single-speaker chat turn that says something about its speaker, in time order."""
    found = []
    for chunk in chunks:
        speakers = chunk.metadata.get("speakers") or []
        speaker = chunk.metadata.get("speaker")
        if chunk.kind != "chat" or not speaker or len(speakers) > 1:
            continue
        body = chunk.text.split(": ", 1)[1] if chunk.text.startswith(f"{speaker}: ") else chunk.text
        said = about_self(body)
        if said:
            found.append(Statement(chunk.id, str(speaker), said, chunk.timestamp or ""))
    return sorted(found, key=lambda s: (s.timestamp, s.chunk_id))


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def _centred(vectors: list[np.ndarray]) -> list[np.ndarray]:
    """Unit vectors less their mean: what every turn of a conversation shares (its speakers, its
    title, its tone) no longer makes them look alike."""
    units = np.asarray([_unit(np.asarray(v, dtype=np.float32)) for v in vectors])
    return list(units - units.mean(axis=0)) if len(units) >= CENTRED_FROM else list(units)


def topics(vectors: list[np.ndarray], threshold: float) -> list[list[int]]:
    """Indexes grouped greedily: each joins the group whose mean is nearest, if within `threshold`
    (cosine), else starts its own."""
    groups: list[list[int]] = []
    sums: list[np.ndarray] = []
    for index, vector in enumerate(vectors):
        unit = _unit(np.asarray(vector, dtype=np.float32))
        scores = [float(_unit(total) @ unit) for total in sums]
        best = int(np.argmax(scores)) if scores else -1
        if best >= 0 and scores[best] >= threshold:
            groups[best].append(index)
            sums[best] = sums[best] + unit
        else:
            groups.append([index])
            sums.append(unit.copy())
    return groups


def build_speaker_profiles(chunks: list[Chunk], vectors: dict[str, np.ndarray], threshold: float = 0.3,
                           min_turns: int = 2, max_turns: int = 8) -> dict[str, Any]:
    """The state `speakers`: per person, their profile items (text, cited turns, vector)."""
    by_speaker: dict[str, list[Statement]] = {}
    for statement in statements(chunks):
        if statement.chunk_id in vectors:
            by_speaker.setdefault(statement.speaker, []).append(statement)
    items = []
    for speaker, said in sorted(by_speaker.items()):
        for group in topics(_centred([vectors[s.chunk_id] for s in said]), threshold):
            if len(group) >= min_turns:
                items.append(_item(speaker, [said[i] for i in group][:max_turns], vectors))
    return {"version": 1, "items": items}


def _item(speaker: str, said: list[Statement], vectors: dict[str, np.ndarray]) -> dict[str, Any]:
    sources = [s.chunk_id for s in said]
    mean = _unit(np.mean([_unit(np.asarray(vectors[i], dtype=np.float32)) for i in sources], axis=0))
    return {
        "id": "profile_" + content_hash(speaker, json.dumps(sources)),
        "speaker": speaker,
        "text": f"{speaker}, in their own words: " + " ".join(s.sentences for s in said),
        "sources": sources,
        "vector": [round(float(v), 5) for v in mean],
    }
